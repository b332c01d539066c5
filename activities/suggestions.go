package activities

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/records"
	"github.com/dqs/dqs/storedfile"
	"github.com/dqs/dqs/suggest"
)

// suggestionPreviewRows is how many of a file's first rows a suggested
// step is previewed on, and suggestionPreviewShown how many of the rows
// it changes the preview keeps.
const (
	suggestionPreviewRows  = 2000
	suggestionPreviewShown = 5
)

// suggestionMaxMapping bounds the variants of a suggested standardize
// step, so that its mapping fits the bound of a step's configuration
// (models.MaxStepBytes) for values of usual length; a longer one is left
// out (proposedStep).
const suggestionMaxMapping = 1000

// SuggestCorrections runs the suggesters on an analysed upload and adds
// what they propose to the file's fix inbox: each step with its engine,
// its confidence calibrated on the organisation's trust history for that
// engine and correction type (the raw one kept beside it), its
// explanation, and a preview of the rows it changes among the first ones.
// Corrected copies get no suggestions of their own (their fixes belong to
// their pipeline), nor do files whose raw file is gone. A file the
// suggesters cannot read gets none, without error.
func (a *Activities) SuggestCorrections(ctx context.Context, in FileRef) error {
	f, err := a.Stores.Files.Get(ctx, in.OrgID, in.FileID)
	if err != nil || f.Status != models.FileCompleted || f.ParentFileID != nil || f.StorageKey == "" || f.Profile == "" {
		return err
	}
	var res analysis.Result
	if err := json.Unmarshal([]byte(f.Profile), &res); err != nil {
		return err
	}
	j, err := a.Stores.Jobs.Get(ctx, in.OrgID, f.JobID)
	if err != nil {
		return err
	}
	d, err := storedfile.Dialect(j, f)
	if err != nil {
		return nil // the analysis failed the file for it already
	}
	local, err := a.downloadFile(ctx, f)
	if errors.Is(err, blob.ErrNotFound) {
		return nil // deleted since
	}
	if err != nil {
		return err
	}
	defer local.Close()
	open := func() (records.Reader, error) { return local.Open(d, 0) }
	stop := keepHeartbeat(ctx)
	found, err := suggest.Suggest(ctx, &res, open, suggest.Options{NullTokens: d.NullTokens, MaxMapping: suggestionMaxMapping})
	stop()
	if errors.Is(err, analysis.ErrBadInput) {
		return nil
	}
	if err != nil {
		return err
	}
	history, err := a.Stores.Suggestions.History(ctx, in.OrgID)
	if err != nil {
		return err
	}
	var steps []models.CorrectionStep
	for _, s := range found {
		st, ok := a.proposedStep(ctx, s, history, open, d)
		if ok {
			steps = append(steps, st)
		}
	}
	svc := correctionsvc.Service{Stores: a.Stores}
	_, err = svc.Propose(ctx, in.OrgID, f, steps)
	return err
}

// proposedStep is suggestion s (which Suggest validated against the
// file's columns) as a stored engine step; false for one over the bound
// of a step.
func (a *Activities) proposedStep(ctx context.Context, s suggest.Suggestion, history map[models.TrustKey]models.TrustCounts,
	open func() (records.Reader, error), d analysis.Dialect) (models.CorrectionStep, bool) {
	step := s.Step()
	var params strings.Builder
	enc := json.NewEncoder(&params)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s.Params); err != nil || s.Params == nil {
		params.Reset()
		params.WriteString("{}")
	}
	h := history[models.TrustKey{Engine: s.Engine, CorrectionType: s.CorrectionType}]
	calibrated := suggest.Calibrate(s.Confidence, suggest.Feedback(h))
	raw := s.Confidence
	st := models.CorrectionStep{CorrectionType: s.CorrectionType, ColumnName: s.Column, Strategy: s.Strategy,
		Params: strings.TrimSpace(params.String()), Engine: s.Engine, Confidence: &calibrated, RawConfidence: &raw,
		Explanation: s.Explanation}
	if len(st.Params)+len(st.Explanation) > models.MaxStepBytes {
		a.Logger.Warn("suggestion left out: its configuration is over the bound of a step", "type", s.CorrectionType,
			"strategy", s.Strategy, "bytes", len(st.Params)+len(st.Explanation))
		return models.CorrectionStep{}, false
	}
	st.Preview = stepPreview(ctx, step, open, d)
	if len(st.Params)+len(st.Preview)+len(st.Explanation) > models.MaxStepBytes {
		st.Preview = "" // long values leave no room for rows
	}
	return st, true
}

// stepPreview runs step alone on the first rows of the file and returns
// the JSON {"before": [rows], "after": [rows or null]} of the first rows
// it changes (null after: removed); "" when it cannot be previewed. A row
// is an object of the step's column alone (every column for a dedupe,
// whose rows are the change): the preview keeps no more of the file's
// values than it must, since it outlives the raw file.
func stepPreview(ctx context.Context, step corrections.Step, open func() (records.Reader, error), d analysis.Dialect) string {
	r, err := open()
	if err != nil {
		return ""
	}
	defer r.Close()
	res, err := corrections.Preview(ctx, r, corrections.Pipeline{step}, suggestionPreviewRows, corrections.Options{NullTokens: d.NullTokens})
	if err != nil {
		return ""
	}
	type preview struct {
		Before []map[string]any `json:"before"`
		After  []map[string]any `json:"after"`
	}
	out := preview{Before: []map[string]any{}, After: []map[string]any{}}
	for _, row := range res.Rows {
		if len(out.Before) == suggestionPreviewShown {
			break
		}
		if row.After != nil && slices.Equal(row.Before.Values, row.After.Values) && slices.Equal(row.Before.Null, row.After.Null) {
			continue
		}
		out.Before = append(out.Before, previewRow(step, res.Columns, row.Before))
		if row.After == nil {
			out.After = append(out.After, nil)
		} else {
			out.After = append(out.After, previewRow(step, res.Columns, *row.After))
		}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return ""
	}
	return string(raw)
}

// previewRow is rec as a suggestion's preview shows it: the step's column,
// or the whole row for a step on rows.
func previewRow(step corrections.Step, cols []string, rec records.Record) map[string]any {
	all := corrections.RowObject(cols, rec)
	if step.Column == "" {
		return all
	}
	return map[string]any{step.Column: all[step.Column]}
}
