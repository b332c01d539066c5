package reportsvc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/reports"
)

// Config is a report's options, as the request's `config` gives them.
type Config struct {
	// Level is basic (default) or advanced.
	Level reports.Level `json:"level,omitempty"`
	// FileIDs limits the uploads the report covers (none: every upload).
	FileIDs []int64 `json:"file_ids,omitempty"`
	// SourceIDs limits the sources whose tables it covers (none: every
	// source). IncludeTables false leaves tables out altogether.
	SourceIDs     []int64 `json:"source_ids,omitempty"`
	IncludeTables *bool   `json:"include_tables,omitempty"`
	// DateFrom and DateTo bound the analyses covered: a date
	// (YYYY-MM-DD, the whole day, UTC) or an RFC 3339 time; DateTo is
	// inclusive of its day.
	DateFrom string `json:"date_from,omitempty"`
	DateTo   string `json:"date_to,omitempty"`
}

const (
	// MaxScopeIDs bounds file_ids and source_ids.
	MaxScopeIDs = 200
	// maxConfigBytes bounds the config object.
	maxConfigBytes = 16 << 10
)

// Costs are the tokens a report costs by type and level (SPEC.md "Limits").
var costs = map[reports.Kind]map[reports.Level]int64{
	reports.GDPRCompliance:   {reports.Basic: 5, reports.Advanced: 10},
	reports.ExecutiveSummary: {reports.Basic: 5, reports.Advanced: 10},
	reports.AIReadiness:      {reports.Basic: 0, reports.Advanced: 0},
}

// Cost is what a report of the kind and level costs.
func Cost(k reports.Kind, l reports.Level) int64 { return costs[k][l] }

// ParseKind checks a report_type.
func ParseKind(s string) (reports.Kind, error) {
	k := reports.Kind(s)
	if slices.Contains(reports.Kinds, k) {
		return k, nil
	}
	names := make([]string, len(reports.Kinds))
	for i, k := range reports.Kinds {
		names[i] = string(k)
	}
	return "", errs.BadRequest("report_type must be one of %s", strings.Join(names, ", "))
}

// ParseConfig reads and checks a config object (absent or null: the
// defaults). An unknown key is refused, naming it, so a typo does not
// silently widen a report.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var c Config
	if len(raw) > maxConfigBytes {
		return c, errs.BadRequest("config is larger than %d bytes", maxConfigBytes)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		c.Level = reports.Basic
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, errs.BadRequest("config: %s", configError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return c, errs.BadRequest("config must be one JSON object")
	}
	return c, c.check()
}

func configError(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return typeErr.Field + " has the wrong type (" + typeErr.Value + ")"
	}
	msg := err.Error()
	if i := strings.Index(msg, "unknown field "); i >= 0 {
		return msg[i:] + "; config takes level, file_ids, source_ids, include_tables, date_from, date_to"
	}
	return "not a JSON object: " + msg
}

func (c *Config) check() error {
	if c.Level == "" {
		c.Level = reports.Basic
	}
	if c.Level != reports.Basic && c.Level != reports.Advanced {
		return errs.BadRequest("config.level must be basic or advanced")
	}
	for _, list := range []struct {
		name string
		ids  []int64
	}{{"file_ids", c.FileIDs}, {"source_ids", c.SourceIDs}} {
		name, ids := list.name, list.ids
		if len(ids) > MaxScopeIDs {
			return errs.BadRequest("config.%s lists %d ids; at most %d", name, len(ids), MaxScopeIDs)
		}
		for _, id := range ids {
			if id <= 0 {
				return errs.BadRequest("config.%s holds %d, not an id", name, id)
			}
		}
	}
	from, to, err := c.Range()
	if err != nil {
		return err
	}
	if from != nil && to != nil && !from.Before(*to) {
		return errs.BadRequest("config.date_from must be before config.date_to")
	}
	return nil
}

// Range is the config's date range as [from, to).
func (c Config) Range() (from, to *time.Time, err error) {
	if from, err = parseDate("date_from", c.DateFrom, false); err != nil {
		return nil, nil, err
	}
	to, err = parseDate("date_to", c.DateTo, true)
	return from, to, err
}

// parseDate reads a date or a time; a date as an end bound is the end of
// its day.
func parseDate(field, s string, end bool) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		if end {
			t = t.AddDate(0, 0, 1)
		}
		return &t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, errs.BadRequest("config.%s must be a date (2006-01-02) or an RFC 3339 time", field)
	}
	t = t.UTC()
	return &t, nil
}

// Scope is what the report reads.
func (c Config) Scope() models.ReportScope {
	from, to, _ := c.Range() // checked by ParseConfig
	return models.ReportScope{FileIDs: c.FileIDs, SourceIDs: c.SourceIDs, From: from, To: to}
}

// Tables reports whether the report covers tables: yes unless
// include_tables is false or file_ids names the files (and no source_ids
// widens it again).
func (c Config) Tables() bool {
	if c.IncludeTables != nil {
		return *c.IncludeTables
	}
	return len(c.FileIDs) == 0 || len(c.SourceIDs) > 0
}

// Files reports whether the report covers uploads: yes unless source_ids
// names the sources and no file_ids is given.
func (c Config) Files() bool { return len(c.FileIDs) > 0 || len(c.SourceIDs) == 0 }

// JSON is the config as stored.
func (c Config) JSON() string {
	b, _ := json.Marshal(c)
	return string(b)
}
