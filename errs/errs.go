// Package errs declares the service's public errors once: each carries the
// HTTP status, the stable machine code of the API envelope and a message that
// is safe to show to the caller. Packages return these (or wrap them); one
// middleware in api/ maps them to the envelope, so a raw error never reaches
// a response body.
package errs

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is a public error: Status and Code go on the wire, Message is shown
// to the caller and must never contain secrets or internal detail.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is makes errors.Is match on the code, so callers can test
// errors.Is(err, errs.ErrNotFound) whatever the message.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.Code == e.Code && t.Status == e.Status
}

func newf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Sentinels for errors.Is comparisons; their messages are generic.
var (
	ErrBadRequest         = &Error{http.StatusBadRequest, "bad_request", "invalid request"}
	ErrUnauthorized       = &Error{http.StatusUnauthorized, "unauthorized", "missing or invalid credentials"}
	ErrNotFound           = &Error{http.StatusNotFound, "not_found", "not found"}
	ErrConflict           = &Error{http.StatusConflict, "conflict", "conflict"}
	ErrLimitExceeded      = &Error{http.StatusConflict, "limit_exceeded", "limit exceeded"}
	ErrInsufficientTokens = &Error{http.StatusPaymentRequired, "insufficient_tokens", "insufficient tokens"}
	ErrInternal           = &Error{http.StatusInternalServerError, "internal_error", "internal server error"}
)

// BadRequest reports invalid or missing request parameters.
func BadRequest(format string, args ...any) *Error {
	return newf(http.StatusBadRequest, "bad_request", format, args...)
}

// Unauthorized reports a missing or invalid token, API key or login.
func Unauthorized(format string, args ...any) *Error {
	return newf(http.StatusUnauthorized, "unauthorized", format, args...)
}

// Forbidden reports a role that is too low; the message names the role needed.
func Forbidden(format string, args ...any) *Error {
	return newf(http.StatusForbidden, "forbidden", format, args...)
}

// InsufficientScope reports an API key whose scope is below the one needed.
func InsufficientScope(required string) *Error {
	return newf(http.StatusForbidden, "insufficient_scope", "this API key lacks the required scope %q", required)
}

// NotFound reports a missing resource. A resource of another organisation
// must use exactly the same message, so the two cannot be told apart.
func NotFound(what string) *Error {
	return newf(http.StatusNotFound, "not_found", "%s not found", what)
}

// Conflict reports a request the current state does not allow.
func Conflict(format string, args ...any) *Error {
	return newf(http.StatusConflict, "conflict", format, args...)
}

// ReportNotReady reports a report asked to be downloaded or shared before
// it is complete.
func ReportNotReady(format string, args ...any) *Error {
	return newf(http.StatusConflict, "report_not_ready", format, args...)
}

// LimitExceeded reports a count limit such as 10 API keys per organisation.
func LimitExceeded(format string, args ...any) *Error {
	return newf(http.StatusConflict, "limit_exceeded", format, args...)
}

// InsufficientTokens reports a token balance too low for the action.
func InsufficientTokens(format string, args ...any) *Error {
	return newf(http.StatusPaymentRequired, "insufficient_tokens", format, args...)
}

// PayloadTooLarge reports a request body above the configured maximum.
func PayloadTooLarge(format string, args ...any) *Error {
	return newf(http.StatusRequestEntityTooLarge, "payload_too_large", format, args...)
}

// SourceUnreachable is a data source that could not be reached or listed
// (502): the message is the connector's, which never quotes a credential.
func SourceUnreachable(format string, args ...any) *Error {
	return newf(http.StatusBadGateway, "source_unreachable", format, args...)
}

// RateLimited reports a request over its rate limit.
func RateLimited() *Error {
	return newf(http.StatusTooManyRequests, "rate_limited", "too many requests; retry after the time in the Retry-After header")
}

// Public returns the public form of any error: an *Error as it is, anything
// else as a generic internal error (the cause is logged, never shown).
func Public(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return ErrInternal
}
