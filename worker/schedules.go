package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// scheduleTimeZone is the zone every Schedule's cron is evaluated in.
const scheduleTimeZone = "UTC"

// Schedule describes one Temporal Schedule the service needs to exist.
type Schedule struct {
	ID   string // stable schedule id, e.g. "dqs-purge-expired-tokens"
	Cron string // standard five-field cron, evaluated in UTC
	// Every, instead of Cron, runs the workflow every Every, at the
	// times Offset past a multiple of Every since the Unix epoch (so a
	// schedule anchored at a row's creation runs a whole number of
	// periods after it).
	Every, Offset time.Duration
	Workflow      any // workflow function or name
	Args          []any
	TaskQueue     string
	WorkflowID    string                      // id of each started workflow (Temporal appends the time); defaults to ID
	Overlap       enums.ScheduleOverlapPolicy // default SKIP when zero
	Note          string                      // set when the schedule is created; later runs leave the state alone
	// Paused, when set, is the paused state the schedule must have, at
	// creation and at every update; nil leaves the state as an operator
	// set it.
	Paused *bool
}

// EnsureSchedules creates each schedule, or, when it already exists, updates
// its spec and action to match. Safe to call on every worker start and from
// many workers at once.
//
// Existing schedules get their Spec, Action and Policy replaced; their State
// (paused flag, note, remaining actions) is kept, so a schedule an operator
// paused stays paused. All schedules are validated before any is touched;
// after that the first failure stops the run and is returned wrapped with the
// schedule id.
func EnsureSchedules(ctx context.Context, c client.Client, schedules []Schedule) error {
	seen := make(map[string]bool, len(schedules))
	for _, s := range schedules {
		if err := s.validate(); err != nil {
			return fmt.Errorf("schedule %q: %w", s.ID, err)
		}
		if seen[s.ID] {
			return fmt.Errorf("schedule %q: listed more than once", s.ID)
		}
		seen[s.ID] = true
	}
	if len(schedules) == 0 {
		return nil
	}
	if c == nil {
		return errors.New("ensure schedules: nil Temporal client")
	}
	sc := c.ScheduleClient()
	for _, s := range schedules {
		if err := ensureSchedule(ctx, sc, s); err != nil {
			return fmt.Errorf("schedule %q: %w", s.ID, err)
		}
	}
	return nil
}

// ensureWindow bounds how long ensureSchedule retries the create-or-update
// round while Temporal answers in a transient way: the schedule just created
// by another worker and not yet queryable, or deleted between Create and
// Update, or the namespace not known yet to the server's cache, as a server
// that has just started (or is very busy) answers for several seconds.
const ensureWindow = 30 * time.Second

func ensureSchedule(ctx context.Context, sc client.ScheduleClient, s Schedule) error {
	deadline := time.Now().Add(ensureWindow)
	for attempt := 1; ; attempt++ {
		err := createOrUpdate(ctx, sc, s)
		if err == nil || !isTransient(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (after: %w)", ctx.Err(), err)
		case <-time.After(min(time.Duration(attempt)*200*time.Millisecond, 2*time.Second)):
		}
	}
}

func createOrUpdate(ctx context.Context, sc client.ScheduleClient, s Schedule) error {
	spec, action, policy := s.spec(), s.action(), s.policies()

	_, err := sc.Create(ctx, client.ScheduleOptions{
		ID:            s.ID,
		Spec:          spec,
		Action:        action,
		Overlap:       policy.Overlap,
		CatchupWindow: policy.CatchupWindow,
		Note:          s.Note,
		Paused:        s.Paused != nil && *s.Paused,
	})
	if err == nil {
		return nil
	}
	if !isAlreadyExists(err) {
		return fmt.Errorf("create: %w", err)
	}

	// It exists (created by an earlier start or by a concurrent worker):
	// bring spec, action and policy in line. Concurrent updates all write the
	// same content, so last-writer-wins is harmless.
	err = sc.GetHandle(ctx, s.ID).Update(ctx, client.ScheduleUpdateOptions{
		DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			sched := in.Description.Schedule
			specCopy := spec
			sched.Spec = &specCopy
			sched.Action = action
			policyCopy := policy
			sched.Policy = &policyCopy
			if sched.State == nil {
				sched.State = &client.ScheduleState{}
			}
			if s.Paused != nil {
				sched.State.Paused = *s.Paused
			}
			return &client.ScheduleUpdate{Schedule: &sched}, nil
		},
	})
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	return nil
}

func isTransient(err error) bool {
	var notFound *serviceerror.NotFound
	var notReady *serviceerror.WorkflowNotReady
	var noNamespace *serviceerror.NamespaceNotFound
	return errors.As(err, &notFound) || errors.As(err, &notReady) || errors.As(err, &noNamespace)
}

func isAlreadyExists(err error) bool {
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return true
	}
	var alreadyExists *serviceerror.AlreadyExists
	if errors.As(err, &alreadyExists) {
		return true
	}
	var alreadyStarted *serviceerror.WorkflowExecutionAlreadyStarted
	return errors.As(err, &alreadyStarted)
}

func (s Schedule) validate() error {
	switch {
	case strings.TrimSpace(s.ID) == "":
		return errors.New("empty ID")
	case s.Workflow == nil:
		return errors.New("no Workflow")
	case s.TaskQueue == "":
		return errors.New("empty TaskQueue")
	}
	if name, ok := s.Workflow.(string); ok && name == "" {
		return errors.New("empty Workflow name")
	}
	if s.Every > 0 {
		if s.Cron != "" {
			return errors.New("both Cron and Every set")
		}
		if s.Offset < 0 || s.Offset >= s.Every {
			return fmt.Errorf("offset %s outside [0, %s)", s.Offset, s.Every)
		}
		return nil
	}
	if strings.Contains(s.Cron, "TZ=") {
		return fmt.Errorf("cron %q: time zone prefixes are not allowed, crons are always evaluated in %s", s.Cron, scheduleTimeZone)
	}
	if n := len(strings.Fields(s.Cron)); n != 5 {
		return fmt.Errorf("cron %q: want 5 fields (minute hour day-of-month month day-of-week), got %d", s.Cron, n)
	}
	return nil
}

func (s Schedule) spec() client.ScheduleSpec {
	if s.Every > 0 {
		return client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: s.Every, Offset: s.Offset}}}
	}
	return client.ScheduleSpec{
		CronExpressions: []string{s.Cron},
		TimeZoneName:    scheduleTimeZone,
	}
}

func (s Schedule) action() *client.ScheduleWorkflowAction {
	workflowID := s.WorkflowID
	if workflowID == "" {
		workflowID = s.ID
	}
	return &client.ScheduleWorkflowAction{
		ID:        workflowID,
		Workflow:  s.Workflow,
		Args:      s.Args,
		TaskQueue: s.TaskQueue,
	}
}

func (s Schedule) policies() client.SchedulePolicies {
	overlap := s.Overlap
	if overlap == enums.SCHEDULE_OVERLAP_POLICY_UNSPECIFIED {
		overlap = enums.SCHEDULE_OVERLAP_POLICY_SKIP
	}
	return client.SchedulePolicies{Overlap: overlap}
}

// DeleteSchedule removes Temporal Schedule id; one already gone is no
// error (a delete retried, or an operator's).
func DeleteSchedule(ctx context.Context, c client.Client, id string) error {
	err := c.ScheduleClient().GetHandle(ctx, id).Delete(ctx)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil
	}
	return err
}
