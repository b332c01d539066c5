package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// health answers {"data": {status, version}} only (SPEC.md): "ok" with 200
// when the database answers, "unavailable" with 503 when it does not, so a
// load balancer can take the replica out.
func (s *Server) health(c *gin.Context) error {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	status, code := "ok", http.StatusOK
	if err := s.Stores.DB.Ping(ctx); err != nil {
		logger(c).Error("health: database unreachable", "error", err)
		status, code = "unavailable", http.StatusServiceUnavailable
	}
	c.JSON(code, gin.H{"data": gin.H{"status": status, "version": s.Version}})
	return nil
}
