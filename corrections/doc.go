// Package corrections applies the data-quality fixes a user approved to a
// file: an ordered pipeline of steps (fill nulls, fix formats, remove
// duplicates, replace by a regular expression, compute a value with an
// expression) run as one streaming pass over a records.Reader, written to
// a Writer in the input's format. Preview runs the very same code on the
// first rows of a file and returns them before and after, writing nothing.
//
// The package is a pure engine: it reads rows, writes rows, and knows
// nothing of HTTP, workflows or databases.
//
// # Memory
//
// Memory does not grow with the file, except for what a step must
// remember by its nature, and that is bounded by an option:
//
//   - The pass holds one row at a time (the reader's own bounds apply, see
//     readers.Options), and the writer one buffer: a few KiB for CSV and
//     JSON, one row group for Parquet (WriterOptions.RowGroupBytes, 32 MiB
//     of text by default).
//   - null_fill mean, median and mode use a column statistic (Stats): given
//     by the caller (Options.Stats), or computed by a first pass with the
//     profiler's bounded sketches (ColumnStats: some MiB whatever the size).
//   - dedupe keeps a 128-bit hash per distinct key (keep first), or a hash
//     and a row index (keep last), in an open-addressing table of at most
//     Options.DedupeMemoryBudget bytes (256 MiB by default); a file with more
//     distinct keys than fit is refused with ErrDedupeBudget, never
//     silently deduplicated in part. See dedupe.go for the exact figures.
//   - custom expressions run under a per-row budget of allocations and
//     time (sandbox.go).
//   - Preview holds its sample: at most MaxPreviewRows rows.
//
// # Passes
//
// Apply reads the input once, except for the steps that must see every
// row before they can fix the first: dedupe with keep "last" (which row is
// the last of its key), and null_fill mean/median/mode without a statistic
// in Options.Stats. Each such step costs one more pass over the input,
// opened again with Options.Reopen; every pass runs the steps before it,
// so the step sees the rows as they will reach it. The steps are
// deterministic (custom expressions have no clock), so every pass sees the
// same rows.
//
// # Failure
//
// A step that cannot run on a row (an expression that fails or exceeds
// its budget, a value grown past Options.MaxValueBytes) stops Apply with a
// *RowError naming the step and the row. Apply closes the Writer only
// after the last row was written: on an error the output is incomplete and
// the caller discards it.
package corrections
