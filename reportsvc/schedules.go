package reportsvc

import (
	"context"
	"encoding/json"
	"errors"
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
)

// Schedules keeps the Temporal Schedule of each report schedule in line
// with its row: one per row, every Frequency days from the row's
// creation, paused while the row is disabled.
type Schedules interface {
	// Put creates or updates the schedule's Temporal Schedule.
	Put(ctx context.Context, sc *models.ReportSchedule) error
	// Delete removes it; one already gone is no error.
	Delete(ctx context.Context, orgID, id string) error
	// Trigger starts a run now, beside the schedule's own.
	Trigger(ctx context.Context, orgID, id string) error
}

// Frequencies are the schedule frequencies and their periods (SPEC.md
// "Limits").
var Frequencies = map[string]int{"weekly": 7, "monthly": 30, "quarterly": 90}

// Period is a frequency's period.
func Period(frequency string) time.Duration {
	return time.Duration(Frequencies[frequency]) * 24 * time.Hour
}

// MaxRecipients bounds a schedule's recipients.
const MaxRecipients = 20

// NextRun is when an enabled schedule next runs after now: its creation
// plus a whole number of periods (the Temporal Schedule's interval is
// anchored there); nil when disabled.
func NextRun(sc *models.ReportSchedule, now time.Time) *time.Time {
	p := Period(sc.Frequency)
	if !sc.Enabled || p <= 0 {
		return nil
	}
	n := now.Sub(sc.CreatedAt)/p + 1
	next := sc.CreatedAt.Add(n * p).UTC()
	return &next
}

// ScheduleInput is a schedule as a request gives it: nil fields are not
// given (for an update, left as they are).
type ScheduleInput struct {
	ReportType *string
	Frequency  *string
	Recipients *[]string
	Config     json.RawMessage
	Enabled    *bool
}

// apply checks in and writes it over sc.
func (in ScheduleInput) apply(ctx context.Context, s *Service, orgID string, sc *models.ReportSchedule) error {
	if in.ReportType != nil {
		k, err := ParseKind(*in.ReportType)
		if err != nil {
			return err
		}
		sc.ReportType = string(k)
	}
	if in.Frequency != nil {
		if _, ok := Frequencies[*in.Frequency]; !ok {
			return errs.BadRequest("frequency must be weekly (7 days), monthly (30 days) or quarterly (90 days)")
		}
		sc.Frequency = *in.Frequency
	}
	if in.Recipients != nil {
		list, err := checkRecipients(*in.Recipients)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(list)
		sc.Recipients = string(b)
	}
	if in.Config != nil {
		// The config is checked as a report request's, against the
		// organisation's files and sources as they are now.
		r, err := s.Prepare(ctx, orgID, "", Request{ReportType: sc.ReportType, Config: in.Config})
		if err != nil {
			return err
		}
		sc.Config = r.Config
	}
	if in.Enabled != nil {
		sc.Enabled = *in.Enabled
	}
	return nil
}

// checkRecipients accepts bare e-mail addresses, at most MaxRecipients,
// each once.
func checkRecipients(list []string) ([]string, error) {
	if len(list) == 0 {
		return nil, errs.BadRequest("recipients must list at least one e-mail address")
	}
	if len(list) > MaxRecipients {
		return nil, errs.BadRequest("recipients lists %d addresses; at most %d", len(list), MaxRecipients)
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(list))
	for _, r := range list {
		a, err := mail.ParseAddress(r)
		if err != nil || a.Address != strings.TrimSpace(r) || len(r) > 254 {
			return nil, errs.BadRequest("recipient %q is not an e-mail address", clip(r))
		}
		if k := strings.ToLower(a.Address); !seen[k] {
			seen[k] = true
			out = append(out, a.Address)
		}
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// CreateSchedule stores a schedule (enabled unless said otherwise) and
// creates its Temporal Schedule; if that fails, the row is removed again.
func (s *Service) CreateSchedule(ctx context.Context, orgID, userID string, in ScheduleInput) (*models.ReportSchedule, error) {
	if in.ReportType == nil || in.Frequency == nil || in.Recipients == nil {
		return nil, errs.BadRequest("report_type, frequency and recipients are required")
	}
	sc := &models.ReportSchedule{ID: uuid.NewString(), Enabled: true, Config: Config{Level: "basic"}.JSON(), CreatedBy: userID}
	if err := in.apply(ctx, s, orgID, sc); err != nil {
		return nil, err
	}
	if err := s.Stores.ReportSchedules.Create(ctx, orgID, sc); err != nil {
		return nil, err
	}
	sc.NextRunAt = NextRun(sc, time.Now())
	if err := s.Stores.ReportSchedules.Save(ctx, orgID, sc); err != nil {
		return nil, err
	}
	if err := s.Schedules.Put(ctx, sc); err != nil {
		if derr := s.Stores.ReportSchedules.Delete(context.WithoutCancel(ctx), orgID, sc.ID); derr != nil && s.Logger != nil {
			s.Logger.Error("report schedule left without its Temporal Schedule", "org_id", orgID, "schedule_id", sc.ID, "error", derr)
		}
		return nil, errors.Join(errs.ErrInternal, err)
	}
	return sc, nil
}

// UpdateSchedule changes a schedule and its Temporal Schedule. The row is
// written first: if Temporal refuses, the row is put back.
func (s *Service) UpdateSchedule(ctx context.Context, orgID, id string, in ScheduleInput) (*models.ReportSchedule, error) {
	sc, err := s.Stores.ReportSchedules.Get(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	before := *sc
	if err := in.apply(ctx, s, orgID, sc); err != nil {
		return nil, err
	}
	sc.NextRunAt = NextRun(sc, time.Now())
	if err := s.Stores.ReportSchedules.Save(ctx, orgID, sc); err != nil {
		return nil, err
	}
	if err := s.Schedules.Put(ctx, sc); err != nil {
		if rerr := s.Stores.ReportSchedules.Save(context.WithoutCancel(ctx), orgID, &before); rerr != nil && s.Logger != nil {
			s.Logger.Error("report schedule row and Temporal Schedule differ", "org_id", orgID, "schedule_id", id, "error", rerr)
		}
		return nil, errors.Join(errs.ErrInternal, err)
	}
	return sc, nil
}

// DeleteSchedule removes the Temporal Schedule, then the row.
func (s *Service) DeleteSchedule(ctx context.Context, orgID, id string) error {
	if _, err := s.Stores.ReportSchedules.Get(ctx, orgID, id); err != nil {
		return err
	}
	if err := s.Schedules.Delete(ctx, orgID, id); err != nil {
		return errors.Join(errs.ErrInternal, err)
	}
	return s.Stores.ReportSchedules.Delete(ctx, orgID, id)
}

// RunSchedule starts a run of the schedule now.
func (s *Service) RunSchedule(ctx context.Context, orgID, id string) (*models.ReportSchedule, error) {
	sc, err := s.Stores.ReportSchedules.Get(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	if err := s.Schedules.Trigger(ctx, orgID, id); err != nil {
		return nil, errors.Join(errs.ErrInternal, err)
	}
	return sc, nil
}

// Recipients are a schedule's recipients.
func Recipients(sc *models.ReportSchedule) []string {
	var out []string
	_ = json.Unmarshal([]byte(sc.Recipients), &out)
	return out
}
