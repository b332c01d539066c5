package workflows

import "github.com/dqs/dqs/activities"

// activitiesRef lets workflows name activities through a typed nil pointer
// (workflow.ExecuteActivity(ctx, a.Method, …)), so a renamed activity is a
// compile error rather than a stuck workflow.
type activitiesRef = activities.Activities
