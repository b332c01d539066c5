package api

import (
	"net/http"

	"github.com/dqs/dqs/models"
)

// Access says which credentials a route accepts.
type Access int

const (
	// Public routes need no credential.
	Public Access = iota
	// Session routes need a user's access token; API keys are refused
	// (auth, users, api-keys and billing, per DECISIONS.md).
	Session
	// Any routes accept a user's access token or an API key.
	Any
)

// limitClass picks the rate limits a route counts against.
type limitClass int

const (
	limitGeneral limitClass = iota
	limitAuth
	limitUpload
	limitJobs
	limitBilling
	limitWebSocket
	limitVerify
)

// route is one row of the route table: everything the middleware needs to
// authenticate, authorise and limit a request is declared here, next to the
// handler, so no handler can forget a check.
type route struct {
	Method string
	Path   string
	Access Access
	// Role is the least role a user needs (member when empty).
	Role models.Role
	// Scope is the least API key scope; empty derives it: admin for admin
	// routes, read for GET, write otherwise.
	Scope models.Scope
	Limit limitClass
	// QueryToken also accepts the access token as ?token=, for browsers,
	// which cannot set headers on a WebSocket.
	QueryToken bool
	Handle     handler
}

func (r route) scope() models.Scope {
	switch {
	case r.Scope != "":
		return r.Scope
	case r.Role == models.RoleAdmin:
		return models.ScopeAdmin
	case r.Method == http.MethodGet:
		return models.ScopeRead
	}
	return models.ScopeWrite
}

// RouteInfo describes a route for tests and documentation.
type RouteInfo struct {
	Method string
	Path   string
	Access Access
	Role   models.Role
	Scope  models.Scope
}

const v1 = "/api/v1"

func (s *Server) routeTable() []route {
	admin := models.RoleAdmin
	return []route{
		{Method: "GET", Path: v1 + "/public/health", Access: Public, Handle: s.health},
		{Method: "GET", Path: v1 + "/openapi.json", Access: Public, Handle: s.openAPI},
		{Method: "GET", Path: v1 + "/docs", Access: Public, Handle: s.docsPage},
		{Method: "GET", Path: v1 + "/docs/redoc.standalone.js", Access: Public, Handle: s.docsRedoc},
		{Method: "GET", Path: "/verify-email", Access: Public, Limit: limitAuth, Handle: s.verifyEmailPage},

		{Method: "POST", Path: v1 + "/auth/register", Access: Public, Limit: limitAuth, Handle: s.register},
		{Method: "POST", Path: v1 + "/auth/verify-email", Access: Public, Limit: limitAuth, Handle: s.verifyEmail},
		{Method: "POST", Path: v1 + "/auth/login", Access: Public, Limit: limitAuth, Handle: s.login},
		{Method: "POST", Path: v1 + "/auth/totp/complete", Access: Public, Limit: limitAuth, Handle: s.totpComplete},
		{Method: "POST", Path: v1 + "/auth/refresh", Access: Public, Limit: limitAuth, Handle: s.refresh},
		{Method: "POST", Path: v1 + "/auth/logout", Access: Public, Limit: limitAuth, Handle: s.logout},
		{Method: "GET", Path: v1 + "/auth/me", Access: Session, Handle: s.me},
		{Method: "POST", Path: v1 + "/auth/totp/setup", Access: Session, Limit: limitAuth, Handle: s.totpSetup},
		{Method: "POST", Path: v1 + "/auth/totp/enable", Access: Session, Limit: limitAuth, Handle: s.totpEnable},
		{Method: "POST", Path: v1 + "/auth/totp/disable", Access: Session, Limit: limitAuth, Handle: s.totpDisable},

		{Method: "POST", Path: v1 + "/users", Access: Session, Role: admin, Handle: s.createUser},
		{Method: "GET", Path: v1 + "/users", Access: Session, Handle: s.listUsers},
		{Method: "PATCH", Path: v1 + "/users/:id", Access: Session, Role: admin, Handle: s.updateUser},
		{Method: "DELETE", Path: v1 + "/users/:id", Access: Session, Role: admin, Handle: s.deleteUser},

		{Method: "POST", Path: v1 + "/api-keys", Access: Session, Role: admin, Handle: s.createAPIKey},
		{Method: "GET", Path: v1 + "/api-keys", Access: Session, Role: admin, Handle: s.listAPIKeys},
		{Method: "DELETE", Path: v1 + "/api-keys/:id", Access: Session, Role: admin, Handle: s.revokeAPIKey},

		{Method: "GET", Path: v1 + "/org/settings", Access: Any, Handle: s.getSettings},
		{Method: "PATCH", Path: v1 + "/org/settings", Access: Any, Role: admin, Handle: s.updateSettings},

		{Method: "GET", Path: v1 + "/billing/balance", Access: Session, Handle: s.balance},
		{Method: "POST", Path: v1 + "/billing/credits", Access: Session, Role: admin, Limit: limitBilling, Handle: s.addCredits},

		{Method: "GET", Path: v1 + "/audit", Access: Any, Role: admin, Handle: s.listAudit},

		{Method: "GET", Path: v1 + "/webhooks", Access: Any, Handle: s.listWebhooks},
		{Method: "POST", Path: v1 + "/webhooks", Access: Any, Role: admin, Handle: s.createWebhook},
		{Method: "PATCH", Path: v1 + "/webhooks/:webhook_id", Access: Any, Role: admin, Handle: s.updateWebhook},
		{Method: "DELETE", Path: v1 + "/webhooks/:webhook_id", Access: Any, Role: admin, Handle: s.deleteWebhook},
		{Method: "POST", Path: v1 + "/webhooks/:webhook_id/test", Access: Any, Role: admin, Handle: s.testWebhook},

		{Method: "POST", Path: v1 + "/jobs", Access: Any, Scope: models.ScopeScan, Limit: limitJobs, Handle: s.createJob},
		{Method: "GET", Path: v1 + "/jobs", Access: Any, Handle: s.listJobs},
		{Method: "GET", Path: v1 + "/jobs/:job_id", Access: Any, Handle: s.getJob},
		{Method: "POST", Path: v1 + "/jobs/:job_id/files", Access: Any, Scope: models.ScopeScan, Limit: limitUpload, Handle: s.uploadJobFiles},
		{Method: "POST", Path: v1 + "/jobs/:job_id/start", Access: Any, Scope: models.ScopeScan, Limit: limitJobs, Handle: s.startJob},
		{Method: "DELETE", Path: v1 + "/jobs/:job_id/files", Access: Any, Handle: s.deleteJobFiles},
		{Method: "GET", Path: v1 + "/files", Access: Any, Handle: s.listFiles},
		{Method: "POST", Path: v1 + "/files/prescan", Access: Any, Scope: models.ScopeScan, Limit: limitUpload, Handle: s.prescan},
		{Method: "GET", Path: v1 + "/files/:id", Access: Any, Handle: s.getFile},
		{Method: "GET", Path: v1 + "/files/:id/download", Access: Any, Handle: s.downloadFile},
		{Method: "POST", Path: v1 + "/files/:id/reanalyze", Access: Any, Scope: models.ScopeScan, Limit: limitJobs, Handle: s.reanalyzeFile},
		{Method: "POST", Path: v1 + "/sources/test-connection", Access: Any, Limit: limitJobs, Handle: s.testSourceConnection},
		{Method: "POST", Path: v1 + "/sources", Access: Any, Handle: s.createSource},
		{Method: "GET", Path: v1 + "/sources", Access: Any, Handle: s.listSources},
		{Method: "GET", Path: v1 + "/sources/:id", Access: Any, Handle: s.getSource},
		{Method: "PATCH", Path: v1 + "/sources/:id", Access: Any, Handle: s.updateSource},
		{Method: "DELETE", Path: v1 + "/sources/:id", Access: Any, Role: admin, Handle: s.deleteSource},
		{Method: "GET", Path: v1 + "/sources/:id/files", Access: Any, Handle: s.listSourceFiles},
		{Method: "POST", Path: v1 + "/sources/:id/scan", Access: Any, Scope: models.ScopeScan, Limit: limitJobs, Handle: s.startScan},
		{Method: "GET", Path: v1 + "/sources/:id/scans", Access: Any, Handle: s.listScans},
		{Method: "GET", Path: v1 + "/sources/:id/scans/:scan_id", Access: Any, Handle: s.getScan},
		{Method: "GET", Path: v1 + "/sources/:id/scans/:scan_id/results", Access: Any, Handle: s.listScanResults},
		{Method: "GET", Path: v1 + "/sources/:id/metrics/:metric/history", Access: Any, Handle: s.metricHistory},
		{Method: "GET", Path: v1 + "/sources/:id/anomalies", Access: Any, Handle: s.listAnomalies},
		{Method: "PATCH", Path: v1 + "/sources/:id/anomalies/:anomaly_id", Access: Any, Scope: models.ScopeWrite, Handle: s.setAnomalyStatus},
		{Method: "GET", Path: v1 + "/alerts", Access: Any, Handle: s.listAlerts},
		{Method: "POST", Path: v1 + "/alerts/:id/acknowledge", Access: Any, Scope: models.ScopeWrite, Handle: s.acknowledgeAlert},
		{Method: "POST", Path: v1 + "/sources/:id/schedules", Access: Any, Handle: s.createSchedule},
		{Method: "GET", Path: v1 + "/sources/:id/schedules", Access: Any, Handle: s.listSchedules},
		{Method: "PATCH", Path: v1 + "/sources/:id/schedules/:sid", Access: Any, Handle: s.updateSchedule},
		{Method: "DELETE", Path: v1 + "/sources/:id/schedules/:sid", Access: Any, Handle: s.deleteSchedule},
		{Method: "PATCH", Path: v1 + "/sources/:id/schedule", Access: Any, Handle: s.setScheduleSensitivity},
		{Method: "POST", Path: v1 + "/contracts", Access: Any, Handle: s.createContract},
		{Method: "GET", Path: v1 + "/contracts", Access: Any, Handle: s.listContracts},
		{Method: "POST", Path: v1 + "/contracts/import", Access: Any, Handle: s.importContract},
		{Method: "GET", Path: v1 + "/contracts/:id", Access: Any, Handle: s.getContract},
		{Method: "PATCH", Path: v1 + "/contracts/:id", Access: Any, Handle: s.updateContract},
		{Method: "DELETE", Path: v1 + "/contracts/:id", Access: Any, Handle: s.deleteContract},
		{Method: "GET", Path: v1 + "/contracts/:id/odcs", Access: Any, Handle: s.exportContract},
		{Method: "GET", Path: v1 + "/lineage", Access: Any, Handle: s.lineageGraph},
		{Method: "POST", Path: v1 + "/lineage/edges", Access: Any, Handle: s.addLineageEdge},
		{Method: "DELETE", Path: v1 + "/lineage/edges/:id", Access: Any, Handle: s.deleteLineageEdge},
		{Method: "GET", Path: v1 + "/blobs/:token", Access: Public, Handle: s.serveBlob},
		{Method: "POST", Path: v1 + "/corrections", Access: Any, Handle: s.createPipeline},
		{Method: "GET", Path: v1 + "/corrections", Access: Any, Handle: s.listPipelines},
		{Method: "GET", Path: v1 + "/corrections/pending-count", Access: Any, Handle: s.pendingCount},
		{Method: "GET", Path: v1 + "/corrections/:id", Access: Any, Handle: s.getPipeline},
		{Method: "PATCH", Path: v1 + "/corrections/:id", Access: Any, Handle: s.updatePipeline},
		{Method: "POST", Path: v1 + "/corrections/:id/steps", Access: Any, Handle: s.addStep},
		{Method: "POST", Path: v1 + "/corrections/:id/steps/:step_id/edit", Access: Any, Handle: s.editStep},
		{Method: "POST", Path: v1 + "/corrections/:id/steps/:step_id/approve", Access: Any, Handle: s.approveStep},
		{Method: "POST", Path: v1 + "/corrections/:id/steps/:step_id/reject", Access: Any, Handle: s.rejectStep},
		{Method: "POST", Path: v1 + "/corrections/:id/bulk", Access: Any, Limit: limitJobs, Handle: s.bulkSteps},
		{Method: "POST", Path: v1 + "/corrections/:id/approve-all-high-confidence", Access: Any, Handle: s.approveAllHighConfidence},
		{Method: "GET", Path: v1 + "/corrections/:id/versions", Access: Any, Handle: s.listVersions},
		{Method: "POST", Path: v1 + "/corrections/:id/revert", Access: Any, Handle: s.revertPipeline},
		{Method: "POST", Path: v1 + "/corrections/:id/preview", Access: Any, Limit: limitJobs, Handle: s.previewPipeline},
		{Method: "GET", Path: v1 + "/suggestions", Access: Any, Handle: s.listSuggestions},
		{Method: "POST", Path: v1 + "/suggestions/:suggestion_id/feedback", Access: Any, Handle: s.suggestionFeedback},
		{Method: "POST", Path: v1 + "/corrections/:id/apply", Access: Any, Scope: models.ScopeScan, Limit: limitJobs, Handle: s.applyPipeline},
		{Method: "POST", Path: v1 + "/reports/generate", Access: Any, Limit: limitJobs, Handle: s.generateReport},
		{Method: "GET", Path: v1 + "/reports", Access: Any, Handle: s.listReports},
		{Method: "POST", Path: v1 + "/reports/schedules", Access: Any, Role: admin, Handle: s.createReportSchedule},
		{Method: "GET", Path: v1 + "/reports/schedules", Access: Any, Handle: s.listReportSchedules},
		{Method: "GET", Path: v1 + "/reports/schedules/:id", Access: Any, Handle: s.getReportSchedule},
		{Method: "PATCH", Path: v1 + "/reports/schedules/:id", Access: Any, Role: admin, Handle: s.updateReportSchedule},
		{Method: "DELETE", Path: v1 + "/reports/schedules/:id", Access: Any, Role: admin, Handle: s.deleteReportSchedule},
		{Method: "POST", Path: v1 + "/reports/schedules/:id/run", Access: Any, Role: admin, Limit: limitJobs, Handle: s.runReportSchedule},
		{Method: "GET", Path: v1 + "/reports/:id", Access: Any, Handle: s.getReport},
		{Method: "GET", Path: v1 + "/reports/:id/download", Access: Any, Handle: s.downloadReport},
		{Method: "POST", Path: v1 + "/reports/:id/share", Access: Any, Handle: s.shareReport},
		{Method: "DELETE", Path: v1 + "/reports/:id/share", Access: Any, Handle: s.unshareReport},
		{Method: "GET", Path: v1 + "/public/reports/:share_token", Access: Public, Handle: s.publicReport},
		{Method: "GET", Path: "/report/:share_token", Access: Public, Handle: s.sharedReportPage},
		{Method: "POST", Path: v1 + "/ai-readiness/certificates/verify", Access: Public, Limit: limitVerify, Handle: s.verifyCertificate},
		{Method: "POST", Path: v1 + "/public/upload", Access: Any, Scope: models.ScopeScan, Limit: limitUpload, Handle: s.publicUpload},
		{Method: "GET", Path: v1 + "/public/jobs/:job_id", Access: Any, Handle: s.publicJob},
		{Method: "GET", Path: v1 + "/public/alerts", Access: Any, Scope: models.ScopeRead, Handle: s.publicAlerts},
		{Method: "GET", Path: v1 + "/public/lineage", Access: Any, Scope: models.ScopeRead, Handle: s.lineageGraph},
		{Method: "POST", Path: v1 + "/public/lineage/edges", Access: Any, Scope: models.ScopeWrite, Handle: s.addLineageEdge},
		{Method: "GET", Path: v1 + "/public/contracts/evaluate", Access: Any, Scope: models.ScopeRead, Handle: s.publicEvaluateContract},
		{Method: "POST", Path: v1 + "/public/scan/trigger", Access: Any, Scope: models.ScopeScan, Limit: limitJobs, Handle: s.publicScanTrigger},
		{Method: "GET", Path: v1 + "/public/scan/:scan_id/status", Access: Any, Scope: models.ScopeScan, Handle: s.publicScanStatus},
		{Method: "GET", Path: "/ws/jobs/:job_id/progress", Access: Session, Limit: limitWebSocket, QueryToken: true, Handle: s.jobProgressSocket},
	}
}
