package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/google/uuid"
)

// requirement is what a route needs, written out from SPEC.md and
// DECISIONS.md independently of the route table, so the matrix below tests
// the table rather than repeating it.
type requirement struct {
	access string // public, session (users only), any (users or API keys)
	admin  bool   // admin role (or an admin-scope key)
	scope  string // least API key scope for "any" routes
}

var requirements = map[string]requirement{
	"GET /api/v1/public/health":                                {access: "public"},
	"GET /api/v1/openapi.json":                                 {access: "public"},
	"GET /api/v1/docs":                                         {access: "public"},
	"GET /api/v1/docs/redoc.standalone.js":                     {access: "public"},
	"GET /verify-email":                                        {access: "public"},
	"POST /api/v1/auth/register":                               {access: "public"},
	"POST /api/v1/auth/verify-email":                           {access: "public"},
	"POST /api/v1/auth/login":                                  {access: "public"},
	"POST /api/v1/auth/totp/complete":                          {access: "public"},
	"POST /api/v1/auth/refresh":                                {access: "public"},
	"POST /api/v1/auth/logout":                                 {access: "public"},
	"GET /api/v1/auth/me":                                      {access: "session"},
	"POST /api/v1/auth/totp/setup":                             {access: "session"},
	"POST /api/v1/auth/totp/enable":                            {access: "session"},
	"POST /api/v1/auth/totp/disable":                           {access: "session"},
	"POST /api/v1/users":                                       {access: "session", admin: true},
	"GET /api/v1/users":                                        {access: "session"},
	"PATCH /api/v1/users/:id":                                  {access: "session", admin: true},
	"DELETE /api/v1/users/:id":                                 {access: "session", admin: true},
	"POST /api/v1/api-keys":                                    {access: "session", admin: true},
	"GET /api/v1/api-keys":                                     {access: "session", admin: true},
	"DELETE /api/v1/api-keys/:id":                              {access: "session", admin: true},
	"GET /api/v1/org/settings":                                 {access: "any", scope: "read"},
	"PATCH /api/v1/org/settings":                               {access: "any", admin: true, scope: "admin"},
	"GET /api/v1/billing/balance":                              {access: "session"},
	"POST /api/v1/billing/credits":                             {access: "session", admin: true},
	"GET /api/v1/audit":                                        {access: "any", admin: true, scope: "admin"},
	"GET /api/v1/webhooks":                                     {access: "any", scope: "read"},
	"POST /api/v1/webhooks":                                    {access: "any", admin: true, scope: "admin"},
	"PATCH /api/v1/webhooks/:webhook_id":                       {access: "any", admin: true, scope: "admin"},
	"DELETE /api/v1/webhooks/:webhook_id":                      {access: "any", admin: true, scope: "admin"},
	"POST /api/v1/webhooks/:webhook_id/test":                   {access: "any", admin: true, scope: "admin"},
	"POST /api/v1/sources/test-connection":                     {access: "any", scope: "write"},
	"POST /api/v1/sources":                                     {access: "any", scope: "write"},
	"GET /api/v1/sources":                                      {access: "any", scope: "read"},
	"GET /api/v1/sources/:id":                                  {access: "any", scope: "read"},
	"PATCH /api/v1/sources/:id":                                {access: "any", scope: "write"},
	"DELETE /api/v1/sources/:id":                               {access: "any", admin: true, scope: "admin"},
	"GET /api/v1/sources/:id/files":                            {access: "any", scope: "read"},
	"POST /api/v1/sources/:id/scan":                            {access: "any", scope: "scan"},
	"GET /api/v1/sources/:id/scans":                            {access: "any", scope: "read"},
	"GET /api/v1/sources/:id/scans/:scan_id":                   {access: "any", scope: "read"},
	"GET /api/v1/sources/:id/scans/:scan_id/results":           {access: "any", scope: "read"},
	"GET /api/v1/sources/:id/anomalies":                        {access: "any", scope: "read"},
	"PATCH /api/v1/sources/:id/anomalies/:anomaly_id":          {access: "any", scope: "write"},
	"GET /api/v1/alerts":                                       {access: "any", scope: "read"},
	"POST /api/v1/alerts/:id/acknowledge":                      {access: "any", scope: "write"},
	"GET /api/v1/public/alerts":                                {access: "any", scope: "read"},
	"GET /api/v1/sources/:id/metrics/:metric/history":          {access: "any", scope: "read"},
	"POST /api/v1/sources/:id/schedules":                       {access: "any", scope: "write"},
	"GET /api/v1/sources/:id/schedules":                        {access: "any", scope: "read"},
	"PATCH /api/v1/sources/:id/schedules/:sid":                 {access: "any", scope: "write"},
	"DELETE /api/v1/sources/:id/schedules/:sid":                {access: "any", scope: "write"},
	"PATCH /api/v1/sources/:id/schedule":                       {access: "any", scope: "write"},
	"POST /api/v1/contracts":                                   {access: "any", scope: "write"},
	"GET /api/v1/contracts":                                    {access: "any", scope: "read"},
	"POST /api/v1/contracts/import":                            {access: "any", scope: "write"},
	"GET /api/v1/contracts/:id":                                {access: "any", scope: "read"},
	"PATCH /api/v1/contracts/:id":                              {access: "any", scope: "write"},
	"DELETE /api/v1/contracts/:id":                             {access: "any", scope: "write"},
	"GET /api/v1/contracts/:id/odcs":                           {access: "any", scope: "read"},
	"GET /api/v1/public/contracts/evaluate":                    {access: "any", scope: "read"},
	"GET /api/v1/lineage":                                      {access: "any", scope: "read"},
	"POST /api/v1/lineage/edges":                               {access: "any", scope: "write"},
	"DELETE /api/v1/lineage/edges/:id":                         {access: "any", scope: "write"},
	"GET /api/v1/public/lineage":                               {access: "any", scope: "read"},
	"POST /api/v1/corrections":                                 {access: "any", scope: "write"},
	"GET /api/v1/corrections":                                  {access: "any", scope: "read"},
	"GET /api/v1/corrections/pending-count":                    {access: "any", scope: "read"},
	"GET /api/v1/corrections/:id":                              {access: "any", scope: "read"},
	"PATCH /api/v1/corrections/:id":                            {access: "any", scope: "write"},
	"POST /api/v1/corrections/:id/steps":                       {access: "any", scope: "write"},
	"POST /api/v1/corrections/:id/steps/:step_id/edit":         {access: "any", scope: "write"},
	"POST /api/v1/corrections/:id/steps/:step_id/approve":      {access: "any", scope: "write"},
	"POST /api/v1/corrections/:id/steps/:step_id/reject":       {access: "any", scope: "write"},
	"POST /api/v1/corrections/:id/bulk":                        {access: "any", scope: "write"},
	"POST /api/v1/corrections/:id/approve-all-high-confidence": {access: "any", scope: "write"},
	"GET /api/v1/corrections/:id/versions":                     {access: "any", scope: "read"},
	"POST /api/v1/corrections/:id/revert":                      {access: "any", scope: "write"},
	"POST /api/v1/corrections/:id/preview":                     {access: "any", scope: "write"},
	"POST /api/v1/corrections/:id/apply":                       {access: "any", scope: "scan"},
	"GET /api/v1/suggestions":                                  {access: "any", scope: "read"},
	"POST /api/v1/suggestions/:suggestion_id/feedback":         {access: "any", scope: "write"},
	"POST /api/v1/reports/generate":                            {access: "any", scope: "write"},
	"GET /api/v1/reports":                                      {access: "any", scope: "read"},
	"GET /api/v1/reports/:id":                                  {access: "any", scope: "read"},
	"GET /api/v1/reports/:id/download":                         {access: "any", scope: "read"},
	"POST /api/v1/reports/:id/share":                           {access: "any", scope: "write"},
	"DELETE /api/v1/reports/:id/share":                         {access: "any", scope: "write"},
	"POST /api/v1/reports/schedules":                           {access: "any", admin: true, scope: "admin"},
	"GET /api/v1/reports/schedules":                            {access: "any", scope: "read"},
	"GET /api/v1/reports/schedules/:id":                        {access: "any", scope: "read"},
	"PATCH /api/v1/reports/schedules/:id":                      {access: "any", admin: true, scope: "admin"},
	"DELETE /api/v1/reports/schedules/:id":                     {access: "any", admin: true, scope: "admin"},
	"POST /api/v1/reports/schedules/:id/run":                   {access: "any", admin: true, scope: "admin"},
	"GET /api/v1/public/reports/:share_token":                  {access: "public"},
	"GET /report/:share_token":                                 {access: "public"},
	"POST /api/v1/ai-readiness/certificates/verify":            {access: "public"},
	"POST /api/v1/public/lineage/edges":                        {access: "any", scope: "write"},
	"POST /api/v1/public/scan/trigger":                         {access: "any", scope: "scan"},
	"GET /api/v1/public/scan/:scan_id/status":                  {access: "any", scope: "scan"},
	"POST /api/v1/jobs":                                        {access: "any", scope: "scan"},
	"GET /api/v1/jobs":                                         {access: "any", scope: "read"},
	"GET /api/v1/jobs/:job_id":                                 {access: "any", scope: "read"},
	"POST /api/v1/jobs/:job_id/files":                          {access: "any", scope: "scan"},
	"POST /api/v1/jobs/:job_id/start":                          {access: "any", scope: "scan"},
	"DELETE /api/v1/jobs/:job_id/files":                        {access: "any", scope: "write"},
	"POST /api/v1/files/:id/reanalyze":                         {access: "any", scope: "scan"},
	"GET /api/v1/files":                                        {access: "any", scope: "read"},
	"POST /api/v1/files/prescan":                               {access: "any", scope: "scan"},
	"GET /api/v1/files/:id":                                    {access: "any", scope: "read"},
	"GET /api/v1/files/:id/download":                           {access: "any", scope: "read"},
	"GET /api/v1/blobs/:token":                                 {access: "public"},
	"POST /api/v1/public/upload":                               {access: "any", scope: "scan"},
	"GET /api/v1/public/jobs/:job_id":                          {access: "any", scope: "read"},
	"GET /ws/jobs/:job_id/progress":                            {access: "session"},
}

var scopeRank = map[string]int{"read": 1, "scan": 2, "write": 3, "admin": 4}

// TestRoleAndScopeMatrix calls every route as nobody, a member, an admin
// and an API key of every scope, and checks who is let through.
func TestRoleAndScopeMatrix(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("admin"))
	member := env.AddUser(admin, servicetest.Unique("member"), "member")
	keys := map[string]string{}
	for _, sc := range []string{"read", "scan", "write", "admin"} {
		keys[sc], _ = env.APIKey(admin, sc)
	}

	routes := env.App.API.Routes()
	seen := map[string]bool{}
	for _, r := range routes {
		id := r.Method + " " + r.Path
		seen[id] = true
		req, ok := requirements[id]
		if !ok {
			t.Errorf("route %s has no row in the requirements table of this test: add one", id)
			continue
		}
		path := strings.NewReplacer(":id", uuid.NewString(), ":job_id", "job_missing0000", ":webhook_id", uuid.NewString(), ":token", "bad-token").Replace(r.Path)
		type caller struct {
			name, token string
			wantCode    string // "" = let through
		}
		callers := []caller{{name: "nobody", wantCode: "unauthorized"}}
		if req.access == "public" {
			callers[0].wantCode = ""
		}
		if req.access != "public" {
			memberWant := ""
			if req.admin {
				memberWant = "forbidden"
			}
			callers = append(callers, caller{"member", member.Access, memberWant}, caller{"admin", admin.Access, ""})
			for _, sc := range []string{"read", "scan", "write", "admin"} {
				want := ""
				switch {
				case req.access == "session":
					want = "forbidden"
				case scopeRank[sc] < scopeRank[req.scope]:
					want = "insufficient_scope"
				}
				callers = append(callers, caller{"key:" + sc, keys[sc], want})
			}
		}
		for _, c := range callers {
			res := env.Do(r.Method, path, c.token, nil)
			label := fmt.Sprintf("%s as %s", id, c.name)
			if c.wantCode == "" {
				if res.Status == 401 || res.Status == 403 || res.Status == 429 || res.Status >= 500 {
					t.Errorf("%s = %d %s, want it let through", label, res.Status, res.Raw)
				}
				continue
			}
			wantStatus := 403
			if c.wantCode == "unauthorized" {
				wantStatus = 401
			}
			if res.Status != wantStatus || res.ErrorCode() != c.wantCode {
				t.Errorf("%s = %d %s, want %d %s", label, res.Status, res.Raw, wantStatus, c.wantCode)
			}
			if c.wantCode == "insufficient_scope" && !strings.Contains(res.ErrorMessage(), req.scope) {
				t.Errorf("%s: message %q does not name scope %q", label, res.ErrorMessage(), req.scope)
			}
			if c.wantCode == "forbidden" && strings.HasPrefix(c.name, "member") && !strings.Contains(res.ErrorMessage(), "admin") {
				t.Errorf("%s: message %q does not name the admin role", label, res.ErrorMessage())
			}
		}
	}
	for id := range requirements {
		if !seen[id] {
			t.Errorf("requirements table lists %s, which is not a route", id)
		}
	}
}

// TestBadCredentials: every malformed, forged, expired or revoked credential
// is 401 unauthorized, never a 500.
func TestBadCredentials(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("bc"))
	key, keyID := env.APIKey(admin, "read")
	env.Must(200, "GET", "/api/v1/org/settings", key, nil)
	env.Must(200, "DELETE", "/api/v1/api-keys/"+keyID, admin.Access, nil)
	parts := strings.Split(admin.Access, ".")
	forged := parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))
	none := "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + parts[1] + "."
	for name, tok := range map[string]string{
		"revoked key":    key,
		"unknown key":    "dqs_live_" + strings.Repeat("x", 40),
		"forged jwt":     forged,
		"alg none":       none,
		"garbage":        "not-a-token",
		"refresh as jwt": admin.Refresh,
	} {
		r := env.Do("GET", "/api/v1/org/settings", tok, nil)
		if r.Status != 401 || r.ErrorCode() != "unauthorized" {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	req := env.Do("GET", "/api/v1/org/settings", "", nil)
	if req.Status != 401 {
		t.Fatalf("no credential = %d", req.Status)
	}
	// A deleted user's still-valid access token stops working at once.
	member := env.AddUser(admin, servicetest.Unique("gone"), "member")
	env.Must(200, "GET", "/api/v1/auth/me", member.Access, nil)
	env.Must(200, "DELETE", "/api/v1/users/"+member.UserID, admin.Access, nil)
	env.Must(401, "GET", "/api/v1/auth/me", member.Access, nil)
}
