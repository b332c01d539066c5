package scans

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/launch"
	"github.com/dqs/dqs/models"
)

// Schedules keeps the Temporal Schedule of each source schedule in line
// with its row: one Temporal Schedule per row, paused while the row is
// disabled.
type Schedules interface {
	// Put creates or updates the schedule's Temporal Schedule.
	Put(ctx context.Context, sc *models.SourceSchedule) error
	// Delete removes it; one already gone is no error.
	Delete(ctx context.Context, orgID string, id int64) error
}

// Sensitivities are the anomaly sensitivities a scheduled scan takes.
var Sensitivities = []string{"low", "medium", "high"}

// cronParser reads the five standard fields (minute hour day-of-month
// month day-of-week), nothing else: no seconds, no @descriptors, no time
// zone (schedules run in UTC).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// ParseCron checks a five-field cron expression; a bad one is a 400
// naming the reason.
func ParseCron(expr string) (cron.Schedule, error) {
	expr = strings.TrimSpace(expr)
	if n := len(strings.Fields(expr)); n != 5 {
		return nil, errs.BadRequest("cron_expression must have five fields (minute hour day-of-month month day-of-week, in UTC); %q has %d", clip(expr), n)
	}
	sched, err := cronParser.Parse(expr)
	if err != nil {
		return nil, errs.BadRequest("cron_expression %q is not valid: %s", clip(expr), err.Error())
	}
	return sched, nil
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// NextRun is when an enabled schedule next starts a scan after now; nil
// when disabled.
func NextRun(sc *models.SourceSchedule, now time.Time) *time.Time {
	if !sc.Enabled {
		return nil
	}
	sched, err := ParseCron(sc.CronExpression)
	if err != nil {
		return nil
	}
	next := sched.Next(now.UTC()).UTC()
	return &next
}

// ScheduleInput is a schedule as a request gives it: nil fields are not
// given (for an update, left as they are).
type ScheduleInput struct {
	CronExpression *string
	Tables         *[]string
	Enabled        *bool
	Sensitivity    *string
}

// apply checks in and writes it over sc.
func (in ScheduleInput) apply(src *models.Source, sc *models.SourceSchedule) error {
	if in.CronExpression != nil {
		if _, err := ParseCron(*in.CronExpression); err != nil {
			return err
		}
		sc.CronExpression = strings.TrimSpace(*in.CronExpression)
	}
	if in.Tables != nil {
		if err := (Request{Tables: *in.Tables}).check(src, ""); err != nil {
			return err
		}
		tables, _ := json.Marshal(*in.Tables)
		if *in.Tables == nil {
			tables = []byte("[]")
		}
		sc.Tables = string(tables)
	}
	if in.Enabled != nil {
		sc.Enabled = *in.Enabled
	}
	if in.Sensitivity != nil {
		if !slices.Contains(Sensitivities, *in.Sensitivity) {
			return errs.BadRequest("sensitivity must be one of %s", strings.Join(Sensitivities, ", "))
		}
		sc.Sensitivity = *in.Sensitivity
	}
	return nil
}

// CreateSchedule stores a schedule of a source (enabled unless said
// otherwise) and creates its Temporal Schedule; if that fails, the row is
// removed again.
func (s *Service) CreateSchedule(ctx context.Context, orgID string, sourceID int64, in ScheduleInput) (*models.SourceSchedule, error) {
	src, err := s.Stores.Sources.Get(ctx, orgID, sourceID)
	if err != nil {
		return nil, err
	}
	if in.CronExpression == nil {
		return nil, errs.BadRequest("cron_expression is required (five fields, in UTC, such as \"0 2 * * *\")")
	}
	sc := &models.SourceSchedule{SourceID: src.ID, Enabled: true}
	if err := in.apply(src, sc); err != nil {
		return nil, err
	}
	err = launch.Run(ctx, launch.Steps{
		Write: func(ctx context.Context) error { return s.Stores.SourceSchedules.Create(ctx, orgID, sc) },
		Start: func(ctx context.Context) error { return s.Schedules.Put(ctx, sc) },
		Undo:  func(ctx context.Context) error { return s.Stores.SourceSchedules.Delete(ctx, orgID, src.ID, sc.ID) },
	})
	if err != nil {
		s.logNotUndone(err, "schedule row left without its Temporal Schedule", "schedule_id", sc.ID)
		return nil, err
	}
	return sc, nil
}

// UpdateSchedule changes a schedule and its Temporal Schedule; if the
// Temporal Schedule cannot be changed, the row gets back what it held.
func (s *Service) UpdateSchedule(ctx context.Context, orgID string, sourceID, id int64, in ScheduleInput) (*models.SourceSchedule, error) {
	src, err := s.Stores.Sources.Get(ctx, orgID, sourceID)
	if err != nil {
		return nil, err
	}
	sc, err := s.Stores.SourceSchedules.Get(ctx, orgID, sourceID, id)
	if err != nil {
		return nil, err
	}
	if in == (ScheduleInput{}) {
		return nil, errs.BadRequest("nothing to update: give cron_expression, tables, enabled or sensitivity")
	}
	before := *sc
	if err := in.apply(src, sc); err != nil {
		return nil, err
	}
	err = launch.Run(ctx, launch.Steps{
		Write: func(ctx context.Context) error { return s.Stores.SourceSchedules.Update(ctx, orgID, sc) },
		Start: func(ctx context.Context) error { return s.Schedules.Put(ctx, sc) },
		Undo:  func(ctx context.Context) error { return s.Stores.SourceSchedules.Update(ctx, orgID, &before) },
	})
	if err != nil {
		s.logNotUndone(err, "schedule row changed without its Temporal Schedule", "schedule_id", sc.ID)
		return nil, err
	}
	return sc, nil
}

// DeleteSchedule removes a schedule's Temporal Schedule, then its row.
func (s *Service) DeleteSchedule(ctx context.Context, orgID string, sourceID, id int64) error {
	if _, err := s.Stores.SourceSchedules.Get(ctx, orgID, sourceID, id); err != nil {
		return err
	}
	if err := s.Schedules.Delete(ctx, orgID, id); err != nil {
		return err
	}
	return s.Stores.SourceSchedules.Delete(ctx, orgID, sourceID, id)
}

// DeleteSchedulesOf removes the Temporal Schedules of every schedule of a
// source, before the source (and its rows) is deleted, so that no
// schedule is left starting scans of a source that is gone.
func (s *Service) DeleteSchedulesOf(ctx context.Context, orgID string, sourceID int64) error {
	list, err := s.Stores.SourceSchedules.List(ctx, orgID, sourceID)
	if err != nil {
		return err
	}
	for _, sc := range list {
		if err := s.Schedules.Delete(ctx, orgID, sc.ID); err != nil {
			return err
		}
	}
	return nil
}

// SetSensitivity sets the sensitivity of every schedule of a source and the
// default of those created later, and returns the schedules. A scheduled
// scan reads it from the row when it runs, so the Temporal Schedules are
// left as they are.
func (s *Service) SetSensitivity(ctx context.Context, orgID string, sourceID int64, sensitivity *string) ([]models.SourceSchedule, error) {
	if sensitivity == nil || !slices.Contains(Sensitivities, *sensitivity) {
		return nil, errs.BadRequest("sensitivity is required: one of %s", strings.Join(Sensitivities, ", "))
	}
	if err := s.Stores.SourceSchedules.SetSensitivity(ctx, orgID, sourceID, *sensitivity); err != nil {
		return nil, err
	}
	return s.Stores.SourceSchedules.List(ctx, orgID, sourceID)
}

// ScheduledRequest is the scan a schedule asks for.
func ScheduledRequest(sc *models.SourceSchedule) Request {
	var tables []string
	_ = json.Unmarshal([]byte(sc.Tables), &tables) // written by apply
	id := sc.ID
	return Request{Tables: tables, ScheduleID: &id}
}

func (s *Service) logNotUndone(err error, msg string, args ...any) {
	if errors.Is(err, launch.ErrNotUndone) && s.Logger != nil {
		s.Logger.Error(msg, append(args, "error", err)...)
	}
}
