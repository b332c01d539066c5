package reportsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/quality"
	"github.com/dqs/dqs/reports"
	"github.com/dqs/dqs/scanner"
)

const (
	// MaxDatasets bounds the datasets one report shows: the most recently
	// analysed ones, so that a report's size and memory stay bounded
	// whatever the organisation holds.
	MaxDatasets = 200
	// maxOpenAlerts is how many open alerts the executive summary lists.
	maxOpenAlerts = 20
	// maxGradeHistory is how many earlier grades the AI readiness report
	// shows.
	maxGradeHistory = 24
	// maxReportColumns bounds the columns a report lists over all its
	// datasets (files can have thousands): personal-data columns first,
	// since the GDPR inventory must name them, then the others in order.
	maxReportColumns = 10000
	// maxIssuesPerDataset bounds a dataset's issues: the worst ones.
	maxIssuesPerDataset = 100
)

// trimColumns keeps at most budget columns over the datasets: every
// personal-data column while the budget lasts, then the others, each
// dataset's in their order.
func trimColumns(datasets []reports.Dataset, budget int) {
	total := 0
	for _, d := range datasets {
		total += len(d.Columns)
	}
	if total <= budget {
		return
	}
	keep := make([][]bool, len(datasets))
	for pass, personal := range []bool{true, false} {
		for i, d := range datasets {
			if pass == 0 {
				keep[i] = make([]bool, len(d.Columns))
			}
			for j, c := range d.Columns {
				if c.Personal() == personal && budget > 0 {
					keep[i][j] = true
					budget--
				}
			}
		}
	}
	for i := range datasets {
		kept := datasets[i].Columns[:0]
		for j, c := range datasets[i].Columns {
			if keep[i][j] {
				kept = append(kept, c)
			}
		}
		datasets[i].Columns = kept
	}
}

// worstIssues keeps the n issues of the highest severity, the most
// values first, in that order.
func worstIssues(in []reports.Issue, n int) []reports.Issue {
	if len(in) <= n {
		return in
	}
	sort.SliceStable(in, func(i, j int) bool {
		if ri, rj := reports.SeverityRank(in[i].Severity), reports.SeverityRank(in[j].Severity); ri != rj {
			return ri < rj
		}
		return in[i].Count > in[j].Count
	})
	return in[:n]
}

// Gather reads what the report shows from the organisation's data: each
// dataset (an uploaded file by name, a table by source and name) at its
// latest analysis in scope, with its previous score and its history; the
// open alerts; the daily trend; for AI readiness the assessment and the
// earlier grades.
func (s *Service) Gather(ctx context.Context, orgID string, rep *models.Report) (reports.Input, error) {
	cfg, err := ParseConfig(json.RawMessage(rep.Config))
	if err != nil {
		return reports.Input{}, err
	}
	org, err := s.Stores.Orgs.Get(ctx, orgID)
	if err != nil {
		return reports.Input{}, err
	}
	from, to, _ := cfg.Range()
	// What was analysed after the report was asked for is left out, so a
	// retried build reads what the first attempt read, and the report
	// says what was known when it was asked for.
	scope := cfg.Scope()
	if asked := rep.CreatedAt.UTC(); scope.To == nil || scope.To.After(asked) {
		scope.To = &asked
	}
	in := reports.Input{Kind: reports.Kind(rep.ReportType), Level: cfg.Level, ReportID: rep.ID, Organization: org.Name,
		GeneratedAt: rep.CreatedAt.UTC(), From: from, To: to,
		Retention: reports.Retention{Mode: org.RetentionMode, Days: org.RetentionDays}}
	var trend []reports.ScorePoint
	if cfg.Files() {
		files, points, names, err := s.fileDatasets(ctx, orgID, scope)
		if err != nil {
			return in, err
		}
		in.Datasets, trend = append(in.Datasets, files...), append(trend, points...)
		in.DatasetsInScope += names
	}
	if cfg.Tables() && len(in.Datasets) < MaxDatasets {
		tables, total, err := s.tableDatasets(ctx, orgID, scope, MaxDatasets-len(in.Datasets))
		if err != nil {
			return in, err
		}
		in.DatasetsInScope += total
		for _, d := range tables {
			trend = append(trend, reports.ScorePoint{At: d.AnalysedAt, Score: d.Score})
		}
		in.Datasets = append(in.Datasets, tables...)
	}
	trimColumns(in.Datasets, maxReportColumns)
	for i := range in.Datasets {
		in.Datasets[i].Issues = worstIssues(in.Datasets[i].Issues, maxIssuesPerDataset)
	}
	in.Trend = dailyMeans(trend)
	open := false
	alerts, total, err := s.Stores.Alerts.List(ctx, orgID, models.AlertFilter{Acknowledged: &open}, models.Page{Limit: maxOpenAlerts})
	if err != nil {
		return in, err
	}
	in.OpenAlertsTotal = total
	for _, a := range alerts {
		in.OpenAlerts = append(in.OpenAlerts, reports.Alert{Kind: a.Type, Severity: a.Severity, Title: a.Message, RaisedAt: a.CreatedAt.UTC()})
	}
	if in.Kind == reports.AIReadiness {
		a := reports.Assess(in.Datasets)
		in.Readiness = &a
		history, err := s.Stores.Certificates.History(ctx, orgID, rep.ID, rep.CreatedAt, maxGradeHistory)
		if err != nil {
			return in, err
		}
		for _, c := range history {
			in.GradeHistory = append(in.GradeHistory, reports.GradePoint{At: c.IssuedAt.UTC(), Grade: c.Grade, Score: c.Score})
		}
	}
	return in, nil
}

// fileDatasets returns the uploads in scope, one per file name at its
// latest analysis, and every analysis's score for the trend.
func (s *Service) fileDatasets(ctx context.Context, orgID string, sc models.ReportScope) ([]reports.Dataset, []reports.ScorePoint, int64, error) {
	// The datasets are chosen by name in SQL, so a name analysed long ago
	// is not pushed out by many analyses of others; the newest analyses
	// give the trend and the histories.
	latest, names, err := s.Stores.Files.LatestPerName(ctx, orgID, sc, MaxDatasets)
	if err != nil {
		return nil, nil, 0, err
	}
	analyses, err := s.Stores.Files.AnalysesInScope(ctx, orgID, sc)
	if err != nil {
		return nil, nil, 0, err
	}
	history := map[string][]reports.ScorePoint{}
	var trend []reports.ScorePoint
	for _, a := range analyses { // newest first
		if a.QualityScore == nil {
			continue
		}
		p := reports.ScorePoint{At: a.CompletedAt.UTC(), Score: *a.QualityScore}
		trend = append(trend, p)
		history[a.FileName] = append(history[a.FileName], p)
	}
	files, err := s.Stores.Files.GetMany(ctx, orgID, latest)
	if err != nil {
		return nil, nil, 0, err
	}
	byID := make(map[int64]models.File, len(files))
	for _, f := range files {
		byID[f.ID] = f
	}
	jobs := map[string]*models.Job{}
	out := make([]reports.Dataset, 0, len(latest))
	for _, id := range latest {
		f, ok := byID[id]
		if !ok {
			continue // deleted meanwhile
		}
		var res analysis.Result
		if err := json.Unmarshal([]byte(f.Profile), &res); err != nil {
			return nil, nil, 0, fmt.Errorf("file %d: stored profile: %w", f.ID, err)
		}
		d := fileDataset(&f, &res)
		d.History = reverse(history[f.FileName])
		if prev, err := s.Stores.Files.PreviousAnalysis(ctx, orgID, f.FileName, f.ID); err != nil {
			return nil, nil, 0, err
		} else if prev != nil && prev.QualityScore != nil {
			d.PreviousScore = prev.QualityScore
		}
		j, ok := jobs[f.JobID]
		if !ok {
			if j, err = s.Stores.Jobs.Get(ctx, orgID, f.JobID); err != nil {
				return nil, nil, 0, err
			}
			jobs[f.JobID] = j
		}
		d.ErasureDueAt, d.ErasedAt = utcPtr(j.RetentionExpiresAt), utcPtr(j.FileDeletedAt)
		out = append(out, d)
	}
	return out, trend, names, nil
}

// LineageNodes names the lineage nodes of the datasets a report covered,
// from the ids Gather gives them ("file/<id>", "table/<source>/<name>").
func LineageNodes(datasets []reports.Dataset) []models.NodeRef {
	out := make([]models.NodeRef, 0, len(datasets))
	for _, d := range datasets {
		kind, ref, _ := strings.Cut(d.ID, "/")
		switch kind {
		case string(reports.KindFile):
			out = append(out, models.NodeRef{Type: lineage.TypeFile, Ref: ref})
		case string(reports.KindTable):
			out = append(out, models.NodeRef{Type: lineage.TypeTable, Ref: ref})
		}
	}
	return out
}

func fileDataset(f *models.File, res *analysis.Result) reports.Dataset {
	d := reports.Dataset{Kind: reports.KindFile, ID: string(reports.KindFile) + "/" + models.FileRef(f.ID), Name: f.FileName,
		Location: "uploaded to DQS storage", Rows: res.RowCount, Score: res.Quality.Score,
		Dimensions: dimensions(res.Quality.Dimensions), Issues: issues(res.Quality.Issues)}
	if f.CompletedAt != nil {
		d.AnalysedAt = f.CompletedAt.UTC()
	}
	scores := columnScores(res.Quality)
	for _, c := range res.Columns {
		d.Columns = append(d.Columns, column(c.Name, c.InferredType, c.Classification, c.Nulls+c.Empty, c.Count, c.Distinct, scores))
	}
	return d
}

// column is a report's column: its classification and figures, the
// missing values (nulls and empty) as a share of the values.
func column(name, typ string, cl classify.Result, missing, values, distinct int64, scores map[string]float64) reports.Column {
	nullRate := 0.0
	if values > 0 {
		nullRate = float64(missing) / float64(values)
	}
	return reports.Column{Name: name, Type: typ, Classification: cl.Label, Category: string(cl.Category), Confidence: cl.Confidence,
		NullRate: nullRate, Distinct: distinct, Score: scores[name]}
}

// tableDatasets returns the tables in scope, one per source and table at
// its latest scan, at most limit.
func (s *Service) tableDatasets(ctx context.Context, orgID string, sc models.ReportScope, limit int) ([]reports.Dataset, int64, error) {
	analyses, tables, err := s.Stores.Scans.LatestTables(ctx, orgID, sc, limit)
	if err != nil {
		return nil, 0, err
	}
	ids := make([]int64, len(analyses))
	for i, a := range analyses {
		ids[i] = a.ID
	}
	rows, err := s.Stores.Scans.TablesByID(ctx, orgID, ids)
	if err != nil {
		return nil, 0, err
	}
	sourceOf := map[int64]int64{}
	for _, a := range analyses {
		sourceOf[a.ID] = a.SourceID
	}
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].CreatedAt.After(rows[j].CreatedAt) || rows[i].CreatedAt.Equal(rows[j].CreatedAt) && rows[i].ID > rows[j].ID
	})
	sources := map[int64]*models.Source{}
	var out []reports.Dataset
	for _, t := range rows {
		sid := sourceOf[t.ID]
		src, ok := sources[sid]
		if !ok {
			if src, err = s.Stores.Sources.Get(ctx, orgID, sid); errors.Is(err, errs.ErrNotFound) {
				continue // deleted meanwhile
			} else if err != nil {
				return nil, 0, err
			}
			sources[sid] = src
		}
		var res scanner.Result
		if err := json.Unmarshal([]byte(t.Profile), &res); err != nil {
			return nil, 0, fmt.Errorf("scan table %d: stored profile: %w", t.ID, err)
		}
		out = append(out, tableDataset(src, &t, &res))
	}
	return out, tables, nil
}

func tableDataset(src *models.Source, t *models.ScanTable, res *scanner.Result) reports.Dataset {
	d := reports.Dataset{Kind: reports.KindTable, ID: string(reports.KindTable) + "/" + models.TableRef(src.ID, t.TableName), Name: src.Name + "." + t.TableName,
		Location: fmt.Sprintf("%s source %q", src.Type, src.Name), AnalysedAt: t.CreatedAt.UTC(), Rows: res.Rows}
	var scores map[string]float64
	if res.Quality != nil {
		d.Score, d.Dimensions, d.Issues = res.Quality.Score, dimensions(res.Quality.Dimensions), issues(res.Quality.Issues)
		scores = columnScores(*res.Quality)
	}
	d.History = []reports.ScorePoint{{At: d.AnalysedAt, Score: d.Score}}
	for _, c := range res.Columns {
		d.Columns = append(d.Columns, column(c.Name, c.DataType, c.Classification, c.Nulls+c.Empty, res.Rows, c.Distinct, scores))
	}
	return d
}

func dimensions(d quality.Dimensions) reports.Dimensions {
	return reports.Dimensions{Completeness: d.Completeness, Validity: d.Validity, Uniqueness: d.Uniqueness, Consistency: d.Consistency}
}

// issues drops the examples: they are values of the data.
func issues(in []quality.Issue) []reports.Issue {
	out := make([]reports.Issue, len(in))
	for i, is := range in {
		out[i] = reports.Issue{Kind: is.Kind, Column: is.Column, Severity: is.Severity, Count: is.Count, Message: is.Message}
	}
	return out
}

func columnScores(q quality.Report) map[string]float64 {
	m := make(map[string]float64, len(q.Columns))
	for _, c := range q.Columns {
		m[c.Name] = c.Score
	}
	return m
}

// dailyMeans is the mean score per UTC day, oldest first.
func dailyMeans(points []reports.ScorePoint) []reports.ScorePoint {
	type acc struct{ sum, n float64 }
	days := map[time.Time]*acc{}
	for _, p := range points {
		d := p.At.UTC().Truncate(24 * time.Hour)
		if days[d] == nil {
			days[d] = &acc{}
		}
		days[d].sum += p.Score
		days[d].n++
	}
	out := make([]reports.ScorePoint, 0, len(days))
	for d, a := range days {
		out = append(out, reports.ScorePoint{At: d, Score: a.sum / a.n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

func reverse(p []reports.ScorePoint) []reports.ScorePoint {
	out := make([]reports.ScorePoint, len(p))
	for i := range p {
		out[len(p)-1-i] = p[i]
	}
	return out
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
