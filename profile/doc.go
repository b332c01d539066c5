// Package profile computes a single-pass, mergeable profile of a table given
// as rows of strings with null flags.
//
// Memory is bounded whatever the row count: per column a Space-Saving table
// of 10,000 values (exact counts and distinct count until it overflows, then
// cut to 1,024 heavy-hitter counters), a HyperLogLog sketch once it fills, a KLL quantile sketch of about 1,800 numbers, two
// tables of 256 format signatures and a reservoir sample; per table, the
// hashes of up to 1,000,000 distinct rows, then a HyperLogLog sketch.
// Stored values are cut to 512 bytes (1024 in samples), so wide values do not
// defeat the bound.
//
// Profilers of disjoint chunks can be merged (Profiler.Merge) to the result
// of a single pass over the whole; see Merge for what is exact and what is
// within sketch error.
//
// Definitions, per column (see Column for each field):
//
//   - a value is null when the reader flags it so (or the row is too short),
//     empty when it is non-null and "" or only ASCII whitespace, non-empty
//     otherwise. Type inference, formats, min/max and samples look at
//     non-empty values only.
//   - integer: optional sign, digits, no leading zero unless "0", within
//     int64. float: the decimal float grammar with '.' as the only separator
//     (no inf/nan/hex/','), with the same leading-zero rule for the integer
//     part (so zip codes like "01234" stay strings). boolean: true/false/yes/no/t/f/y/n/0/1, any case,
//     and only if every non-empty value is one. Numerals with thousands
//     separators, a decimal comma, currency or percent signs are numbers
//     too, in the column's convention (numerals.go). date: 2006-01-02,
//     2006/01/02, 02.01.2006 (day first), 02/01/2006, 01/02/2006 (ambiguous
//     slash dates are read the way most unambiguous ones in the column
//     read, day first on a tie). datetime: RFC 3339 and "2006-01-02
//     15:04:05", fraction and zone optional, and the slash forms of
//     spreadsheets, "1/2/06 15:04" or "01/02/2006 3:04:05 PM", read like
//     slash dates (parseSlashDatetime).
//   - the inferred type is boolean if every value is one, else the first of
//     integer, float, date, datetime that at least 95% of the values parse
//     as, else string.
//   - format signatures: see Signatures. The dominant format is the most
//     frequent fine signature, unless it covers less than half of the values
//     and the most frequent coarse signature covers more (UUIDs, hex codes).
//
// Duplicate rows are detected with a 64-bit hash of every cell's value and
// null flag: exact (up to hash collisions) for up to 1,000,000 distinct rows,
// after which DuplicateRows ≈ RowCount − (HyperLogLog estimate of distinct
// rows, precision 16, ~0.4% standard error) and DuplicateRowsEstimated is true.
//
// The hot path (Profiler.Add) does not allocate in steady state: parsing,
// hashing and signatures work on the caller's strings and on reused buffers,
// and what is kept is copied into buffers the profiler owns.
package profile
