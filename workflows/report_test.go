package workflows

// GenerateReport and ScheduledReport on the SDK's test environment, whose
// clock skips the retries' back-off (an e-mail retried for minutes runs
// in milliseconds), with the activities mocked and every call logged.

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/models"
)

var reportTestStart = time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)

// reportFixture mocks the report activities; the defaults succeed.
type reportFixture struct {
	t      *testing.T
	env    *testsuite.TestWorkflowEnvironment
	build  func(attempt int32) error
	create func(attempt int32) error
	email  func(attempt int32) error

	mu    sync.Mutex
	calls []string // activity@queue, in order
	runs  []activities.ScheduleRunResult
	fails []activities.ReportFailure
}

func newReportFixture(t *testing.T) *reportFixture {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(reportTestStart)
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{TaskQueue: scanTestQueue})
	a := &activities.Activities{}
	env.RegisterActivity(a)
	env.RegisterWorkflow(GenerateReport)
	f := &reportFixture{t: t, env: env,
		build:  func(int32) error { return nil },
		create: func(int32) error { return nil },
		email:  func(int32) error { return nil },
	}
	env.OnActivity(a.BuildReport, mock.Anything, mock.Anything).Return(func(ctx context.Context, in activities.ReportRef) error {
		return f.build(f.log(ctx, "BuildReport"))
	}).Maybe()
	env.OnActivity(a.FailReport, mock.Anything, mock.Anything).Return(func(ctx context.Context, in activities.ReportFailure) error {
		f.log(ctx, "FailReport")
		f.mu.Lock()
		f.fails = append(f.fails, in)
		f.mu.Unlock()
		return nil
	}).Maybe()
	env.OnActivity(a.CreateScheduledReport, mock.Anything, mock.Anything).Return(func(ctx context.Context, in activities.ReportScheduleRef) (string, error) {
		if in.ReportID == "" {
			t.Error("CreateScheduledReport got no report id")
		}
		return in.ReportID, f.create(f.log(ctx, "CreateScheduledReport"))
	}).Maybe()
	env.OnActivity(a.EmailReport, mock.Anything, mock.Anything).Return(func(ctx context.Context, in activities.ReportScheduleRef) error {
		return f.email(f.log(ctx, "EmailReport"))
	}).Maybe()
	env.OnActivity(a.RecordReportScheduleRun, mock.Anything, mock.Anything).Return(func(ctx context.Context, in activities.ScheduleRunResult) error {
		f.log(ctx, "RecordReportScheduleRun")
		f.mu.Lock()
		f.runs = append(f.runs, in)
		f.mu.Unlock()
		return nil
	}).Maybe()
	return f
}

func (f *reportFixture) log(ctx context.Context, name string) int32 {
	info := activity.GetInfo(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name+"@"+info.TaskQueue)
	return info.Attempt
}

func (f *reportFixture) assertCalls(want ...string) {
	f.t.Helper()
	if !reflect.DeepEqual(f.calls, want) {
		f.t.Errorf("calls\n got %v\nwant %v", f.calls, want)
	}
}

func (f *reportFixture) outcome() activities.ReportOutcome {
	f.t.Helper()
	f.env.ExecuteWorkflow(GenerateReport, activities.ReportRef{OrgID: "org-1", ReportID: "rep-1"})
	if !f.env.IsWorkflowCompleted() || f.env.GetWorkflowError() != nil {
		f.t.Fatalf("GenerateReport: completed %v, error %v", f.env.IsWorkflowCompleted(), f.env.GetWorkflowError())
	}
	var out activities.ReportOutcome
	if err := f.env.GetWorkflowResult(&out); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// The build runs on the analysis queue; a transient fault is retried.
func TestGenerateReportRetriesTheBuildOnTheAnalysisQueue(t *testing.T) {
	f := newReportFixture(t)
	f.build = func(attempt int32) error {
		if attempt < 3 {
			return errors.New("blob storage unavailable")
		}
		return nil
	}
	if out := f.outcome(); out.Status != models.ReportComplete {
		t.Fatalf("outcome = %+v", out)
	}
	f.assertCalls("BuildReport@"+scanTestAnalysis, "BuildReport@"+scanTestAnalysis, "BuildReport@"+scanTestAnalysis)
}

// A report that cannot be laid out fails at once, with a readable error,
// and its tokens are given back (FailReport); one whose row is gone ends
// quietly.
func TestGenerateReportFailsReadably(t *testing.T) {
	f := newReportFixture(t)
	f.build = func(int32) error {
		return temporal.NewNonRetryableApplicationError("the report could not be laid out: bad level", activities.ErrTypeBadInput, nil)
	}
	out := f.outcome()
	want := "the report could not be generated: the report could not be laid out: bad level"
	if out.Status != models.ReportFailed || out.Error != want || len(f.fails) != 1 || f.fails[0].Error != want {
		t.Fatalf("outcome %+v, fails %+v", out, f.fails)
	}
	f.assertCalls("BuildReport@"+scanTestAnalysis, "FailReport@"+scanTestQueue)

	g := newReportFixture(t)
	g.build = func(int32) error {
		return temporal.NewNonRetryableApplicationError("report not found", activities.ErrTypeReportGone, nil)
	}
	if out := g.outcome(); out.Status != models.ReportFailed || len(g.fails) != 0 {
		t.Fatalf("deleted report: %+v, fails %v", out, g.fails)
	}
}

func (f *reportFixture) runSchedule() {
	f.t.Helper()
	f.env.ExecuteWorkflow(ScheduledReport, activities.ReportScheduleRef{OrgID: "org-1", ScheduleID: "sched-1"})
	if !f.env.IsWorkflowCompleted() || f.env.GetWorkflowError() != nil {
		f.t.Fatalf("ScheduledReport: completed %v, error %v", f.env.IsWorkflowCompleted(), f.env.GetWorkflowError())
	}
}

// A run creates the report, generates it as a child, e-mails it and
// records the run complete with its report.
func TestScheduledReportRun(t *testing.T) {
	f := newReportFixture(t)
	f.runSchedule()
	f.assertCalls("CreateScheduledReport@"+scanTestQueue, "BuildReport@"+scanTestAnalysis, "EmailReport@"+scanTestQueue, "RecordReportScheduleRun@"+scanTestQueue)
	if len(f.runs) != 1 || f.runs[0].Status != models.ReportComplete || f.runs[0].Schedule.ReportID == "" || !f.runs[0].At.Equal(reportTestStart) {
		t.Fatalf("runs = %+v", f.runs)
	}
}

// Runs that fail are recorded with their reason, and the workflow ends
// without an error so the schedule goes on: too few tokens (no report),
// a report that failed, an e-mail refused through every retry (the
// back-off, minutes long, skipped by the test clock).
func TestScheduledReportFailuresAreRecorded(t *testing.T) {
	cases := []struct {
		name   string
		script func(f *reportFixture)
		calls  []string
		error  string
	}{
		{"tokens", func(f *reportFixture) {
			f.create = func(int32) error {
				return temporal.NewNonRetryableApplicationError("this needs 5 tokens; the balance is 0", activities.ErrTypeBadInput, nil)
			}
		}, []string{"CreateScheduledReport@" + scanTestQueue, "RecordReportScheduleRun@" + scanTestQueue}, "this needs 5 tokens; the balance is 0"},
		{"report", func(f *reportFixture) {
			f.build = func(int32) error {
				return temporal.NewNonRetryableApplicationError("bad layout", activities.ErrTypeBadInput, nil)
			}
		}, []string{"CreateScheduledReport@" + scanTestQueue, "BuildReport@" + scanTestAnalysis, "FailReport@" + scanTestQueue, "RecordReportScheduleRun@" + scanTestQueue},
			"the report could not be generated: bad layout"},
		{"email", func(f *reportFixture) {
			f.email = func(int32) error { return errors.New("554 relay refused") }
		}, nil, "the report was generated but the e-mail could not be sent: 554 relay refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newReportFixture(t)
			c.script(f)
			f.runSchedule()
			if c.calls != nil {
				f.assertCalls(c.calls...)
			}
			if len(f.runs) != 1 || f.runs[0].Status != models.ReportFailed || f.runs[0].Error != c.error {
				t.Fatalf("runs = %+v", f.runs)
			}
		})
	}
	// The e-mail was tried its eight attempts before the run was recorded.
	f := newReportFixture(t)
	f.email = func(int32) error { return errors.New("busy") }
	f.runSchedule()
	emails := 0
	for _, c := range f.calls {
		if c == "EmailReport@"+scanTestQueue {
			emails++
		}
	}
	if emails != 8 {
		t.Errorf("EmailReport tried %d times, want 8", emails)
	}
}

// A schedule deleted before its run creates the report ends the run
// quietly: nothing to record.
func TestScheduledReportOfADeletedSchedule(t *testing.T) {
	f := newReportFixture(t)
	f.create = func(int32) error {
		return temporal.NewNonRetryableApplicationError("report schedule not found", activities.ErrTypeReportGone, nil)
	}
	f.runSchedule()
	f.assertCalls("CreateScheduledReport@" + scanTestQueue)
}
