package api

import (
	"net/http"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/gin-gonic/gin"
)

// Audit page sizes of SPEC.md.
const (
	defaultAuditLimit = 50
	maxAuditLimit     = 200
)

// listAudit answers the organisation's audit entries, newest first (admin).
func (s *Server) listAudit(c *gin.Context) error {
	p := mustPrincipal(c)
	pg, err := parsePage(c, defaultAuditLimit, maxAuditLimit)
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
	c.JSON(http.StatusOK, envelope{Data: gin.H{"logs": logs, "total": total},
		Meta: listMeta{Total: total, Limit: pg.Limit, Offset: pg.Offset, Page: pg.Offset/pg.Limit + 1}})
	return nil
}
