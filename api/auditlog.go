package api

import (
	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/gin-gonic/gin"
)

// defaultAuditLimit is the audit log's page size when none is asked for:
// SPEC.md gives the audit endpoint its own default (50) where other lists
// have 20; its maximum is every list's (maxPageLimit).
const defaultAuditLimit = 50

// listAudit answers the organisation's audit entries, newest first (admin).
func (s *Server) listAudit(c *gin.Context) error {
	p := mustPrincipal(c)
	pg, err := parsePage(c, defaultAuditLimit)
	if err != nil {
		return err
	}
	event := c.Query("event")
	if event != "" && !audit.Known(event) {
		return errs.BadRequest("unknown event %q; see the audit event codes in the API reference", event)
	}
	entries, total, err := s.Stores.Audit.List(c.Request.Context(), p.OrgID, event, models.Page(pg))
	if err != nil {
		return err
	}
	logs := make([]auditView, len(entries))
	for i := range entries {
		logs[i] = viewAudit(&entries[i])
	}
	// SPEC.md shapes this list's data as {logs, total}; meta is the usual
	// list meta all the same.
	return respondList(c, gin.H{"logs": logs, "total": total}, total, pg)
}
