package readers

// Byte tests on eight bytes at once (SWAR), for the scanners' hot loops.

// ones has 1 in every byte: ones*c has c in every byte.
const ones = 0x0101010101010101

// hasZeroByte is not 0 when a byte of w is 0. Its lowest set bit is the
// high bit of the lowest zero byte exactly (borrows only add marks above it).
func hasZeroByte(w uint64) uint64 { return (w - ones) &^ w & (ones * 0x80) }

// hasByteBelow is not 0 when a byte of w is below n (n <= 0x80).
func hasByteBelow(w uint64, n byte) uint64 { return (w - ones*uint64(n)) &^ w & (ones * 0x80) }
