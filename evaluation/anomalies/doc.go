// Package anomalies measures the anomaly detector (package anomaly) on
// labelled series, next to the plain z-score detectors its peers use.
//
// Two suites:
//
//   - Synthetic (Generate): seeded series shaped like scan metrics
//     (null_rate from a binomial draw over the table's rows, row_count of a
//     growing table with weekday appends, distinct_count tied to it, the
//     mean of a column with sampling noise, format_conformance near 1,
//     flat series that never move), daily or every 6 hours, some with
//     missed scans, 60 to 400 scans long, each of one kind (see Kinds) with
//     its anomalies labelled as windows of scan indices.
//   - Real-world (RealWorld): series read in place from the shared
//     fixtures (weather, hourly normals, CO2, stock prices, employment,
//     GitHub activity) with spikes and level shifts injected, sized from
//     each series' own noise. Their natural oddities are unlabelled, so an
//     alert on them counts as false for every detector alike.
//
// Scoring (score): only scans from anomaly.WarmUp on are judged, for every
// detector. An anomaly is detected when at least one alert falls in its
// window; its delay is the first such alert's index minus the window's
// start. Several alerts in one window count once, so precision is
// detected windows / (detected windows + false alerts): a detector gains
// nothing by alerting on every scan of an incident, and each alert
// outside every window is one false alarm. False alerts per 100 scans =
// false alerts / judged scans × 100, pooled over the series of a row.
// Delay quantiles are nearest-rank (the median is the smallest delay
// within which half the detections came).
//
// A level shift's window is its first shiftWindow scans: alerting on the
// change is right, alerting on the new level later is a false alarm. A
// slow decay's window is its whole ramp; the series recovers after it.
// A broken load that persists is labelled for every scan it lasts, and
// the scan it is repaired on is normal.
//
// Targets (report.go), at medium: on the synthetic suite, recall,
// precision, false alerts per 100 scans and median delay, pooled over
// every kind; on the real-world suite, against the plain z-score
// (zscore-excl, each point judged on the points before it) on the same
// series, a recall of at least RealRecallShare (80%) of its recall with at
// most RealFalseShare (50%) of its false alerts per 100 points, and against
// the peers' z-score (zscore, window holding the value) at least its recall
// with at most its false alerts; and at equal recall (each z-score at the
// largest threshold at which it still finds as many anomalies, Matched),
// at most RealFalseShare of the false alerts of either.
//
// TestDiagnoseRealWorld explains the real-world table (per source: how
// much each value says of the next, the windows each detector caught per
// injected kind, dqs's false alerts as onsets and continuations; per
// series: every window and every false alert with dqs's baseline there).
// It prints only when asked:
//
//	DQS_ANOMALY_DIAG=1 DQS_FIXTURES=/path/to/fixtures go test ./evaluation/anomalies -run Diagnose -v
package anomalies
