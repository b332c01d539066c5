// Package suggest turns a file's analysis into proposed correction steps
// (package corrections), each with a confidence that every change it
// makes is right and a plain-language explanation. It is a pure engine:
// it reads the analysis and the file's rows once, and knows nothing of
// HTTP, databases or workflows.
//
// A wrong automatic fix is worse than a missed one: a suggestion is made
// only where the data shows the problem, its strategy is the one that is
// right on (almost) every cell it changes, and its confidence is the
// weakest of its changes', so that a user who applies the steps above a
// trust threshold (0.8 by default) without reading them is not let down.
// The corpus of package evaluation/suggestions measures that promise.
//
// # Engines
//
// The rule engine (EngineRule) answers the quality issues of the profile
// and what the pass counts, one rule a file:
//
//   - whitespace.go: values with white space around → format_fix trim,
//     0.97 (0.85 when most values are padded: a layout, perhaps).
//   - casing.go: spellings differing only in case (inconsistent_case) →
//     a standardize mapping to each group's most frequent spelling, when
//     it is at least 3 times as frequent; 1 − (1 − F(r))(1 − s), from the
//     frequency ratio and the share of the column in the same case style.
//   - dates.go: dates in several layouts (inconsistent_format) → date_iso
//     with the layouts found as input_formats; 0.97 for layouts read one
//     way only, the rule of succession over the column's evidence for
//     slash, dot and dash dates that read both day and month first.
//   - email.go: e-mail addresses in upper case or with spaces →
//     email_normalize, 0.95 (0.85 where most of the column is not in
//     lower case yet).
//   - phone.go: numbers not in E.164 → phone_e164: 0.97 for those with a
//     country code; those without one only with a region the column's
//     international numbers show, at 0.97 × the share valid there.
//   - decimal.go: decimal commas in a numeric column → decimal_point, 0.97,
//     or the rule of succession when some numbers read differently with a
//     comma and a point (1.234).
//   - duplicates.go: exact duplicate rows → dedupe exact keep first, 1 −
//     the share of them chance explains, within [0.3, 0.97].
//   - nullfill.go: missing values in a mostly complete (≥ 90%) numeric
//     column → null_fill median, 0.5 to 0.75: a fill is a guess.
//
// The correction engine (EngineCorrection) makes data-driven value fixes
// in vocabulary columns (categories, cities, statuses; never people's
// names, free text or identifiers):
//
//   - cluster.go: standardize.Cluster over the column's value counts →
//     standardize mappings to each cluster's dominant spelling, with the
//     package's confidences.
//   - dependency.go: column pairs where one determines the other (zip →
//     city) → a custom expression rewriting the dependent value of the
//     rows that break it, with the package's Wilson lower bounds, halved
//     when the determinant value may itself be the wrong cell.
//
// Mappings and fixes are split by confidence into a strong step and a weak
// one (Options.StrongConfidence), and the least confident are dropped
// (Options.MinConfidence).
//
// # Order
//
// Suggestions come file-level first (dedupe), then in column order, the
// rule engine's before the correction engine's, and within a column in
// the order they are meant to run: trim (or email_normalize) before the
// case groups, the case groups before the clusters, the clusters before
// the dependency fixes. A later step's mapping is keyed on the values as
// the earlier steps leave them and on the raw values too, so that it is
// right whether or not the earlier steps were applied.
//
// # Bounds
//
// The pass holds one row at a time. What it keeps is bounded whatever the
// file: the distinct values of the columns that may be case-grouped,
// clustered or in a dependency (Options.MaxDistinct per column,
// Options.ValueMemory for all; a column past either is given up), the
// value pairs of at most Options.MaxPairColumns columns
// (Options.MaxPairs per pair, Options.MaxPairEntries in all), the distinct
// phone numbers to parse (Options.MaxPhoneChecks a column, the rest
// extrapolated), and counters for the rest. The context is checked every
// 1,024 rows and between columns.
//
// # Trust
//
// Calibrate shrinks a raw confidence towards the acceptance users showed
// the same (engine, correction type), a Beta-binomial posterior mean.
package suggest
