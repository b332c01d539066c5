package worker

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/dqs/dqs/internal/temporaltest"
)

const testWorkflowName = "dqs-test-noop-workflow" // never registered; nothing needs to run

func TestEnsureSchedules(t *testing.T) {
	srv := temporaltest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("create, re-ensure, update", func(t *testing.T) {
		s := Schedule{
			ID:         "dqs-test-sweep",
			Cron:       "0 2 * * *",
			Workflow:   testWorkflowName,
			Args:       []any{"first", 1},
			TaskQueue:  "dqs-test",
			WorkflowID: "dqs-test-sweep-run",
			Note:       "created by test",
		}
		if err := EnsureSchedules(ctx, srv.Client, []Schedule{s}); err != nil {
			t.Fatalf("first ensure: %v", err)
		}
		desc := describe(ctx, t, srv.Client, s.ID)
		checkSchedule(t, desc, 2, 0, []any{"first", 1})
		if desc.Schedule.Policy.Overlap != enums.SCHEDULE_OVERLAP_POLICY_SKIP {
			t.Errorf("overlap = %v, want SKIP", desc.Schedule.Policy.Overlap)
		}
		if got := desc.Schedule.State.Note; got != "created by test" {
			t.Errorf("note = %q", got)
		}
		action := desc.Schedule.Action.(*client.ScheduleWorkflowAction)
		if action.ID != "dqs-test-sweep-run" || action.TaskQueue != "dqs-test" {
			t.Errorf("action id/queue = %q/%q", action.ID, action.TaskQueue)
		}
		created := desc.Info.CreatedAt

		// Identical input again: no error, still the same single schedule.
		if err := EnsureSchedules(ctx, srv.Client, []Schedule{s}); err != nil {
			t.Fatalf("second ensure: %v", err)
		}
		desc = describe(ctx, t, srv.Client, s.ID)
		checkSchedule(t, desc, 2, 0, []any{"first", 1})
		if !desc.Info.CreatedAt.Equal(created) {
			t.Errorf("schedule was recreated: created %v, then %v", created, desc.Info.CreatedAt)
		}
		// Creating it once more directly must be refused: there is exactly
		// one schedule with this id.
		if _, err := srv.Client.ScheduleClient().Create(ctx, client.ScheduleOptions{
			ID:     s.ID,
			Spec:   s.spec(),
			Action: s.action(),
		}); !isAlreadyExists(err) {
			t.Errorf("direct create of existing id: err = %v, want already exists", err)
		}

		// Changed cron, args and overlap: the existing schedule is updated.
		s.Cron = "30 5 * * *"
		s.Args = []any{"second", 2, true}
		s.Overlap = enums.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE
		if err := EnsureSchedules(ctx, srv.Client, []Schedule{s}); err != nil {
			t.Fatalf("ensure with changes: %v", err)
		}
		desc = describe(ctx, t, srv.Client, s.ID)
		checkSchedule(t, desc, 5, 30, []any{"second", 2, true})
		if desc.Schedule.Policy.Overlap != enums.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE {
			t.Errorf("overlap = %v, want BUFFER_ONE", desc.Schedule.Policy.Overlap)
		}
		if got := desc.Schedule.State.Note; got != "created by test" {
			t.Errorf("note after update = %q, want the state kept", got)
		}
		if !desc.Info.CreatedAt.Equal(created) {
			t.Errorf("schedule was recreated on update: created %v, then %v", created, desc.Info.CreatedAt)
		}
	})

	t.Run("concurrent workers", func(t *testing.T) {
		s := Schedule{
			ID:        "dqs-test-concurrent",
			Cron:      "15 3 * * *",
			Workflow:  testWorkflowName,
			Args:      []any{"x"},
			TaskQueue: "dqs-test",
		}
		const workers = 4
		errs := make([]error, workers)
		var start, done sync.WaitGroup
		start.Add(1)
		for i := range workers {
			done.Go(func() {
				start.Wait()
				errs[i] = EnsureSchedules(ctx, srv.Client, []Schedule{s})
			})
		}
		start.Done()
		done.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
		}
		desc := describe(ctx, t, srv.Client, s.ID)
		checkSchedule(t, desc, 3, 15, []any{"x"})
		if id := desc.Schedule.Action.(*client.ScheduleWorkflowAction).ID; id != s.ID {
			t.Errorf("default workflow id = %q, want %q", id, s.ID)
		}
	})

	t.Run("several schedules", func(t *testing.T) {
		var list []Schedule
		for i := range 3 {
			list = append(list, Schedule{
				ID:        fmt.Sprintf("dqs-test-multi-%d", i),
				Cron:      fmt.Sprintf("%d 4 * * *", i),
				Workflow:  testWorkflowName,
				TaskQueue: "dqs-test",
			})
		}
		for range 2 {
			if err := EnsureSchedules(ctx, srv.Client, list); err != nil {
				t.Fatalf("ensure: %v", err)
			}
		}
		for i, s := range list {
			checkSchedule(t, describe(ctx, t, srv.Client, s.ID), 4, i, nil)
		}
	})

	t.Run("paused schedule stays paused", func(t *testing.T) {
		s := Schedule{ID: "dqs-test-paused", Cron: "0 1 * * *", Workflow: testWorkflowName, TaskQueue: "dqs-test"}
		if err := EnsureSchedules(ctx, srv.Client, []Schedule{s}); err != nil {
			t.Fatal(err)
		}
		h := srv.Client.ScheduleClient().GetHandle(ctx, s.ID)
		if err := h.Pause(ctx, client.SchedulePauseOptions{Note: "paused by operator"}); err != nil {
			t.Fatal(err)
		}
		s.Cron = "0 6 * * *"
		if err := EnsureSchedules(ctx, srv.Client, []Schedule{s}); err != nil {
			t.Fatal(err)
		}
		desc := describe(ctx, t, srv.Client, s.ID)
		if !desc.Schedule.State.Paused || desc.Schedule.State.Note != "paused by operator" {
			t.Errorf("state = %+v, want still paused by operator", desc.Schedule.State)
		}
		if cal := desc.Schedule.Spec.Calendars; len(cal) != 1 || !isSingle(cal[0].Hour, 6) {
			t.Errorf("calendars = %+v, want hour 6", cal)
		}
	})

	t.Run("recreated after delete", func(t *testing.T) {
		s := Schedule{ID: "dqs-test-deleted", Cron: "0 7 * * *", Workflow: testWorkflowName, TaskQueue: "dqs-test"}
		if err := EnsureSchedules(ctx, srv.Client, []Schedule{s}); err != nil {
			t.Fatal(err)
		}
		if err := srv.Client.ScheduleClient().GetHandle(ctx, s.ID).Delete(ctx); err != nil {
			t.Fatal(err)
		}
		if err := EnsureSchedules(ctx, srv.Client, []Schedule{s}); err != nil {
			t.Fatal(err)
		}
		checkSchedule(t, describe(ctx, t, srv.Client, s.ID), 7, 0, nil)
	})

	t.Run("server error names the schedule", func(t *testing.T) {
		// A minute out of range passes local validation but the server
		// refuses it.
		err := EnsureSchedules(ctx, srv.Client, []Schedule{{
			ID: "dqs-test-bad-cron", Cron: "99 2 * * *", Workflow: testWorkflowName, TaskQueue: "dqs-test",
		}})
		if err == nil {
			t.Fatal("want error for an invalid cron")
		}
		t.Logf("got: %v", err)
		if !strings.Contains(err.Error(), `schedule "dqs-test-bad-cron"`) {
			t.Errorf("error %q does not name the schedule", err)
		}
	})
}

func TestEnsureSchedulesValidation(t *testing.T) {
	valid := Schedule{ID: "a", Cron: "0 2 * * *", Workflow: "wf", TaskQueue: "q"}
	cases := map[string]func(s *Schedule){
		"empty id":       func(s *Schedule) { s.ID = "" },
		"no workflow":    func(s *Schedule) { s.Workflow = nil },
		"empty name":     func(s *Schedule) { s.Workflow = "" },
		"no task queue":  func(s *Schedule) { s.TaskQueue = "" },
		"six fields":     func(s *Schedule) { s.Cron = "0 0 2 * * *" },
		"empty cron":     func(s *Schedule) { s.Cron = "" },
		"time zone cron": func(s *Schedule) { s.Cron = "CRON_TZ=Europe/Berlin 0 2 * *" },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			s := valid
			mutate(&s)
			// A nil client would panic if EnsureSchedules got past validation.
			err := EnsureSchedules(context.Background(), nil, []Schedule{valid, s})
			if err == nil {
				t.Fatal("want error")
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("schedule %q", s.ID)) {
				t.Errorf("error %q does not name the schedule", err)
			}
		})
	}
	t.Run("duplicate id", func(t *testing.T) {
		if err := EnsureSchedules(context.Background(), nil, []Schedule{valid, valid}); err == nil {
			t.Fatal("want error")
		}
	})
	t.Run("nothing to do", func(t *testing.T) {
		if err := EnsureSchedules(context.Background(), nil, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func describe(ctx context.Context, t *testing.T, c client.Client, id string) *client.ScheduleDescription {
	t.Helper()
	desc, err := c.ScheduleClient().GetHandle(ctx, id).Describe(ctx)
	if err != nil {
		t.Fatalf("describe %s: %v", id, err)
	}
	return desc
}

// checkSchedule asserts the schedule fires daily at hour:minute UTC, runs
// testWorkflowName and passes wantArgs.
func checkSchedule(t *testing.T, desc *client.ScheduleDescription, hour, minute int, wantArgs []any) {
	t.Helper()
	spec := desc.Schedule.Spec
	if spec.TimeZoneName != "UTC" {
		t.Errorf("time zone = %q, want UTC", spec.TimeZoneName)
	}
	if len(spec.Calendars) != 1 {
		t.Fatalf("calendars = %+v, want exactly one (from the cron)", spec.Calendars)
	}
	cal := spec.Calendars[0]
	if !isSingle(cal.Hour, hour) || !isSingle(cal.Minute, minute) {
		t.Errorf("calendar hour=%+v minute=%+v, want %d:%02d", cal.Hour, cal.Minute, hour, minute)
	}
	if len(desc.Info.NextActionTimes) == 0 {
		t.Error("no next action times")
	}
	for _, next := range desc.Info.NextActionTimes {
		if u := next.UTC(); u.Hour() != hour || u.Minute() != minute || u.Second() != 0 {
			t.Errorf("next action at %v, want %d:%02d UTC", u, hour, minute)
		}
	}

	action, ok := desc.Schedule.Action.(*client.ScheduleWorkflowAction)
	if !ok {
		t.Fatalf("action = %T, want *client.ScheduleWorkflowAction", desc.Schedule.Action)
	}
	if action.Workflow != testWorkflowName {
		t.Errorf("workflow = %v, want %s", action.Workflow, testWorkflowName)
	}
	if got := decodeArgs(t, action.Args); !reflect.DeepEqual(got, normalize(wantArgs)) {
		t.Errorf("args = %#v, want %#v", got, normalize(wantArgs))
	}
}

func isSingle(r []client.ScheduleRange, v int) bool {
	return len(r) == 1 && r[0].Start == v && (r[0].End == 0 || r[0].End == v)
}

// decodeArgs turns the payloads Describe returns back into JSON values.
func decodeArgs(t *testing.T, args []any) []any {
	t.Helper()
	out := []any{}
	for _, a := range args {
		p, ok := a.(*commonpb.Payload)
		if !ok {
			t.Fatalf("arg %T, want *commonpb.Payload", a)
		}
		var v any
		if err := converter.GetDefaultDataConverter().FromPayload(p, &v); err != nil {
			t.Fatalf("decode arg: %v", err)
		}
		out = append(out, v)
	}
	return out
}

// normalize maps values the way a JSON round trip does (numbers to float64).
func normalize(args []any) []any {
	out := []any{}
	for _, a := range args {
		if n, ok := a.(int); ok {
			out = append(out, float64(n))
			continue
		}
		out = append(out, a)
	}
	return out
}

// A namespace the server does not know yet (a server just started, or a
// namespace registered while the worker starts) answers NamespaceNotFound:
// EnsureSchedules waits for it instead of failing the start.
func TestEnsureSchedulesWaitsForTheNamespace(t *testing.T) {
	srv := temporaltest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const namespace, delay = "dqs-late-namespace", 2 * time.Second
	late, err := client.Dial(client.Options{HostPort: srv.HostPort, Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	ns, err := client.NewNamespaceClient(client.Options{HostPort: srv.HostPort})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	registered := make(chan error, 1)
	time.AfterFunc(delay, func() {
		registered <- ns.Register(ctx, &workflowservice.RegisterNamespaceRequest{
			Namespace:                        namespace,
			WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour),
		})
	})
	s := Schedule{ID: "dqs-test-late", Cron: "0 2 * * *", Workflow: testWorkflowName, TaskQueue: "dqs-test"}
	start := time.Now()
	if err := EnsureSchedules(ctx, late, []Schedule{s}); err != nil {
		t.Fatalf("ensure: %v", err)
	}
	if err := <-registered; err != nil {
		t.Fatalf("register: %v", err)
	}
	if took := time.Since(start); took < delay {
		t.Fatalf("ensured in %v, before the namespace was registered", took)
	}
	describe(ctx, t, late, s.ID)
}
