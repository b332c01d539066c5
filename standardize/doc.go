// Package standardize suggests value standardisations, the fix users of
// OpenRefine reach for first: for one column, which rare spellings of a
// value to rewrite to its dominant spelling ("stockholm " and "Stokholm"
// to "Stockholm"), and for two columns in a functional dependency (zip →
// city), which rows break it. It is a pure engine: it reads counts and
// returns suggestions, and knows nothing of HTTP, databases or workflows.
// The mappings feed the corrections package's format_fix "standardize"
// step (StepMapping).
//
// # Clustering one column (Cluster)
//
// The input is the column's distinct values with their row counts. Values
// are linked by three methods, as in OpenRefine's clustering, and the
// links merge transitively into clusters (union-find):
//
//   - Fingerprint key collision: trim, lower-case, fold to ASCII where a
//     letter has an ASCII reading (é→e, ø→o, ß→ss, full-width Ａ→a; CJK,
//     Hangul, Cyrillic letters stay), remove punctuation, ASCII symbols,
//     control and format characters, split on whitespace, sort and dedupe
//     the tokens, join them with a space. "N.Y." and "NY" give "ny",
//     " Göteborg" and "goteborg" give "goteborg", "Smith, John" and "John
//     Smith" give "john smith".
//   - N-gram fingerprint key collision (n = 2 by default): the same
//     folding and cleaning without whitespace, then the sorted unique
//     n-grams of runes, concatenated. It links "Stock holm" to
//     "Stockholm".
//   - Nearest neighbour: Levenshtein distance between fingerprints of at
//     most 1 when the shorter fingerprint has 5 to 7 runes and at most 2
//     from 8 runes on (ShortLen, LongLen). Fingerprints shorter than 5 are
//     never linked this way: one edit turns a short code into another real
//     code (NY/NJ, USD/USB, 北京/南京), and a typo in a word that short
//     cannot be told from another word. Two edits from 8 runes on catch a
//     transposition ("Stcokholm") or two typos in a longer name while
//     staying at a quarter of the word or less.
//
// Two guards hold whatever the method:
//
//   - Digits: values whose digit sequences differ are never linked ("Apt
//     12"/"Apt 13", "2024-01-02"/"2024-01-03", zip codes, "12 34"/"34
//     12"). Every key carries the value's digits in order, so numbers,
//     dates and identifiers only ever merge with their own formatting
//     variants ("111 22" and "11122").
//   - Frequency ratio: a value is proposed as a variant only when its
//     canonical value is at least MinRatio (R, 3 by default) times as
//     frequent. Two frequent values that look alike ("Paris" 100, "Parts"
//     90) are two real values, not a value and its typo. With R = 3 a
//     variant holds at most a quarter of the rows of the pair.
//
// # From clusters to mappings
//
// A cluster may hold several real values (Paris and Parts are linked by
// one edit and both stay). Its values are visited from the most to the
// least frequent (ties by value). Each value looks at the values already
// visited that it is linked to — first one with the same fingerprint, else
// one with the same n-gram key, else its nearest neighbours (the closest,
// then the one offering the most frequent target) — and takes the target
// that value offers: the value itself if it was kept, or the canonical
// value it was mapped to. The value is mapped to that target when the
// target is at least R times as frequent and the two are at most twice the
// nearest-neighbour radius apart (so 0, formatting only, when the shorter
// fingerprint has fewer than 5 runes); otherwise it is kept. Hence a
// canonical value is never also a variant (no chains), a value whose
// closest relative is a real value of its own ("parts " next to "Parts")
// is not dragged to another one, and a cluster with one dominant value
// maps every rare variant to it, typos of typos included, as OpenRefine's
// merge does. Values with no letter or digit ("", "--") are nulls, not
// spellings, and are left out.
//
// # Confidence
//
//	conf = F(r) · S,   F(r) = ln r / (1 + ln r),   S = 1 − d/L,
//
// clipped to [0.01, 0.99], where r is canonical count / variant count
// (≥ R), d the edit distance once formatting is ignored (0 for the same
// fingerprint, otherwise the smaller of the Levenshtein distances between
// the two fingerprints and between the two compact forms — folded,
// cleaned, without whitespace, in their order) and L the longer
// fingerprint's length in runes.
//
// F reads the frequency evidence on a log scale — each e-fold of
// dominance weighs the same, so 30:1 against 3:1 counts as much as 300:1
// against 30:1 — and maps the log-odds x = ln r into [0, 1) by x/(1+x):
// 0.52 at r = 3, 0.76 at 25, 0.82 at 100, 0.90 at 10⁴. S is the share of
// the characters no edit touches: 1 for case, whitespace, accent,
// punctuation and word-order differences, so these always outrank a typo
// at the same ratio; 1 − 1/9 for "Stokholm" → "Stockholm". On the
// brief's example: STOCKHOLM (83:1) 0.82 > "stockholm " (25:1) 0.76 >
// Stokholm (143:1, one edit in nine) 0.74.
//
// # Performance and blocking
//
// Keys are computed once per value into reused buffers; equal keys are
// found by sorting 64-bit hashes (checked byte for byte), not with maps,
// which miss the cache over a million keys. Nearest neighbours use
// pigeonhole blocking (PassJoin, Li et al., VLDB 2011): a fingerprint
// within τ edits of another keeps at least one of its τ+1 segments intact,
// so fingerprints are indexed by segment, and each is probed with the few
// substrings of it where a segment of a shorter or equal fingerprint can
// land (multi-match-aware selection: at most 12 lookups). Candidates pass
// a filter of a few instructions (bag distance and adjacent-pair sets,
// signature in fpset.go) before a banded edit distance. Without a cap
// this finds exactly the pairs an all-pairs comparison finds (the oracle
// and exhaustive tests).
//
// A block — one segment, at one place, of the fingerprints of one length
// and digit sequence — holding more than MaxBlock fingerprints (256 by
// default) is treated as a stop word: it is not used to find candidates,
// which keeps the work per fingerprint bounded (at most 12 blocks of 256)
// and the whole linear. Such blocks come from segments every value shares
// ("ailcom" ending the gmail addresses of a length, a common syllable at the
// start of short names); a pair is then found only through its other
// segments, and Stats.SkippedBlocks counts the blocks left out. On the
// benchmark's million values this keeps 92.5% of the pairs and 98.7% of
// the mappings of an uncapped run (648,681 of 701,203 pairs; 264,562 of
// 268,061 mappings), in less than a quarter of the time (3.5 s, not 15).
//
// BenchmarkCluster1M (one million distinct values: cities with typos and
// case, whitespace and accent variants, companies, e-mail addresses)
// clusters them in 3.5–3.9 s with GOMAXPROCS=1 on the 2-core machine it
// was written on, about 270,000 values/s, allocating about 0.85 GB.
//
// # Functional dependencies (Dependency, DependencyFixes)
//
// The input is the counts of (determinant, dependent) value pairs of two
// columns. A determinant value with at least MinRows rows (K = 5) is
// supported. The column pair is a dependency when at least MinShare (95%)
// of the supported determinants' rows hold their determinant's dominant
// dependent, those rows are at least half of all rows, at least two
// determinants are supported, and knowing the determinant removes at
// least half of the errors in guessing the dependent (Goodman–Kruskal λ ≥
// 0.5, so that a near-constant dependent is no dependency of anything).
// The rows that break it are proposed for fixing in the determinants that
// themselves follow their dominant dependent in at least MinShare of their
// rows (a zip code split 80/20 between two towns is left alone). At most
// MaxPairs distinct pairs are accepted (1,000,000 by default: about 100
// MB); PairCounter counts pairs from rows within such a bound.
package standardize
