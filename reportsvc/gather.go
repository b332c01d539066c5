package reportsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/dqs/dqs/analysis"
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
)

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
	in := reports.Input{Kind: reports.Kind(rep.ReportType), Level: cfg.Level, ReportID: rep.ID, Organization: org.Name,
		GeneratedAt: rep.CreatedAt.UTC(), From: from, To: to,
		Retention: reports.Retention{Mode: org.RetentionMode, Days: org.RetentionDays}}
	var trend []reports.ScorePoint
	if cfg.Files() {
		files, points, err := s.fileDatasets(ctx, orgID, cfg.Scope())
		if err != nil {
			return in, err
		}
		in.Datasets, trend = append(in.Datasets, files...), append(trend, points...)
	}
	if cfg.Tables() && len(in.Datasets) < MaxDatasets {
		tables, err := s.tableDatasets(ctx, orgID, cfg.Scope(), MaxDatasets-len(in.Datasets))
		if err != nil {
			return in, err
		}
		for _, d := range tables {
			trend = append(trend, reports.ScorePoint{At: d.AnalysedAt, Score: d.Score})
		}
		in.Datasets = append(in.Datasets, tables...)
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
		history, err := s.Stores.Certificates.History(ctx, orgID, rep.CreatedAt, maxGradeHistory)
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
func (s *Service) fileDatasets(ctx context.Context, orgID string, sc models.ReportScope) ([]reports.Dataset, []reports.ScorePoint, error) {
	analyses, err := s.Stores.Files.AnalysesInScope(ctx, orgID, sc)
	if err != nil {
		return nil, nil, err
	}
	var latest []int64
	history := map[string][]reports.ScorePoint{}
	var trend []reports.ScorePoint
	for _, a := range analyses { // newest first
		if a.QualityScore == nil {
			continue
		}
		p := reports.ScorePoint{At: a.CompletedAt.UTC(), Score: *a.QualityScore}
		trend = append(trend, p)
		if _, seen := history[a.FileName]; !seen && len(latest) < MaxDatasets {
			latest = append(latest, a.ID)
		}
		history[a.FileName] = append(history[a.FileName], p)
	}
	files, err := s.Stores.Files.GetMany(ctx, orgID, latest)
	if err != nil {
		return nil, nil, err
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
			return nil, nil, fmt.Errorf("file %d: stored profile: %w", f.ID, err)
		}
		d := fileDataset(&f, &res)
		d.History = reverse(history[f.FileName])
		if prev, err := s.Stores.Files.PreviousAnalysis(ctx, orgID, f.FileName, f.ID); err != nil {
			return nil, nil, err
		} else if prev != nil && prev.QualityScore != nil {
			d.PreviousScore = prev.QualityScore
		}
		j, ok := jobs[f.JobID]
		if !ok {
			if j, err = s.Stores.Jobs.Get(ctx, orgID, f.JobID); err != nil {
				return nil, nil, err
			}
			jobs[f.JobID] = j
		}
		d.ErasureDueAt, d.ErasedAt = utcPtr(j.RetentionExpiresAt), utcPtr(j.FileDeletedAt)
		out = append(out, d)
	}
	return out, trend, nil
}

func fileDataset(f *models.File, res *analysis.Result) reports.Dataset {
	d := reports.Dataset{Kind: reports.KindFile, ID: fmt.Sprintf("file/%d", f.ID), Name: f.FileName,
		Location: "uploaded to DQS storage", Rows: res.RowCount, Score: res.Quality.Score,
		Dimensions: dimensions(res.Quality.Dimensions), Issues: issues(res.Quality.Issues)}
	if f.CompletedAt != nil {
		d.AnalysedAt = f.CompletedAt.UTC()
	}
	scores := columnScores(res.Quality)
	for _, c := range res.Columns {
		nullRate := 0.0
		if c.Count > 0 {
			nullRate = float64(c.Nulls+c.Empty) / float64(c.Count)
		}
		d.Columns = append(d.Columns, reports.Column{Name: c.Name, Type: c.InferredType, Classification: c.Classification.Label,
			Category: string(c.Classification.Category), Confidence: c.Classification.Confidence,
			NullRate: nullRate, Distinct: c.Distinct, Score: scores[c.Name]})
	}
	return d
}

// tableDatasets returns the tables in scope, one per source and table at
// its latest scan, at most limit.
func (s *Service) tableDatasets(ctx context.Context, orgID string, sc models.ReportScope, limit int) ([]reports.Dataset, error) {
	analyses, err := s.Stores.Scans.TableAnalysesInScope(ctx, orgID, sc)
	if err != nil {
		return nil, err
	}
	type key struct {
		source int64
		table  string
	}
	seen := map[key]bool{}
	var ids []int64
	for _, a := range analyses {
		k := key{a.SourceID, a.TableName}
		if !seen[k] && len(ids) < limit {
			seen[k] = true
			ids = append(ids, a.ID)
		}
	}
	rows, err := s.Stores.Scans.TablesByID(ctx, orgID, ids)
	if err != nil {
		return nil, err
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
			if src, err = s.Stores.Sources.Get(ctx, orgID, sid); err != nil {
				continue // deleted meanwhile
			}
			sources[sid] = src
		}
		var res scanner.Result
		if err := json.Unmarshal([]byte(t.Profile), &res); err != nil {
			return nil, fmt.Errorf("scan table %d: stored profile: %w", t.ID, err)
		}
		out = append(out, tableDataset(src, &t, &res))
	}
	return out, nil
}

func tableDataset(src *models.Source, t *models.ScanTable, res *scanner.Result) reports.Dataset {
	d := reports.Dataset{Kind: reports.KindTable, ID: fmt.Sprintf("table/%d/%s", src.ID, t.TableName), Name: src.Name + "." + t.TableName,
		Location: fmt.Sprintf("%s source %q", src.Type, src.Name), AnalysedAt: t.CreatedAt.UTC(), Rows: res.Rows}
	var scores map[string]float64
	if res.Quality != nil {
		d.Score, d.Dimensions, d.Issues = res.Quality.Score, dimensions(res.Quality.Dimensions), issues(res.Quality.Issues)
		scores = columnScores(*res.Quality)
	}
	d.History = []reports.ScorePoint{{At: d.AnalysedAt, Score: d.Score}}
	for _, c := range res.Columns {
		nullRate := 0.0
		if res.Rows > 0 {
			nullRate = float64(c.Nulls+c.Empty) / float64(res.Rows)
		}
		d.Columns = append(d.Columns, reports.Column{Name: c.Name, Type: c.DataType, Classification: c.Classification.Label,
			Category: string(c.Classification.Category), Confidence: c.Classification.Confidence,
			NullRate: nullRate, Distinct: c.Distinct, Score: scores[c.Name]})
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
