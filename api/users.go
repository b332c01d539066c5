package api

import (
	"net/http"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/gin-gonic/gin"
)

type createUserRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	Role     string `json:"role"`
}

// createUser adds a user to the caller's organisation (admin).
func (s *Server) createUser(c *gin.Context) error {
	p := mustPrincipal(c)
	var req createUserRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if err := validateCredentials(req.Email, req.Password); err != nil {
		return err
	}
	role := models.Role(req.Role)
	if req.Role == "" {
		role = models.RoleMember
	}
	if !role.Valid() {
		return errs.BadRequest("role must be admin or member")
	}
	hash, err := auth.HashPassword(req.Password)
	if err != nil {
		return err
	}
	u := &models.User{Email: req.Email, PasswordHash: hash, Role: role}
	if err := s.Stores.Users.Create(c.Request.Context(), p.OrgID, u); err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.UserCreated, IP: clientIP(c),
		Metadata: map[string]any{"user_id": u.ID, "email": u.Email, "role": u.Role}})
	if err := s.Workflows.SendVerificationEmail(c.Request.Context(), p.OrgID, u.ID); err != nil {
		logger(c).Error("verification e-mail not started", "org_id", p.OrgID, "user_id", u.ID, "error", err)
	}
	return respond(c, http.StatusCreated, viewUser(u))
}

// listUsers lists the organisation's users.
func (s *Server) listUsers(c *gin.Context) error {
	p := mustPrincipal(c)
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	users, total, err := s.Stores.Users.List(c.Request.Context(), p.OrgID, models.Page(pg))
	if err != nil {
		return err
	}
	out := make([]userView, len(users))
	for i := range users {
		out[i] = viewUser(&users[i])
	}
	return respondList(c, out, total, pg)
}

type updateUserRequest struct {
	Role *string `json:"role"`
}

// updateUser changes a user's role (admin).
func (s *Server) updateUser(c *gin.Context) error {
	p := mustPrincipal(c)
	var req updateUserRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Role == nil || !models.Role(*req.Role).Valid() {
		return errs.BadRequest("role must be admin or member")
	}
	u, err := s.Stores.Users.SetRole(c.Request.Context(), p.OrgID, c.Param("id"), models.Role(*req.Role))
	if err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.UserRoleChanged, IP: clientIP(c),
		Metadata: map[string]any{"user_id": u.ID, "role": u.Role}})
	return respond(c, http.StatusOK, viewUser(u))
}

// deleteUser removes a user and their sessions (admin).
func (s *Server) deleteUser(c *gin.Context) error {
	p := mustPrincipal(c)
	id := c.Param("id")
	if err := s.Stores.Users.Delete(c.Request.Context(), p.OrgID, id); err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.UserDeleted, IP: clientIP(c),
		Metadata: map[string]any{"user_id": id}})
	return deleted(c, id)
}
