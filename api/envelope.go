package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/dqs/dqs/errs"
	"github.com/gin-gonic/gin"
)

// envelope is the shape of every JSON response but health's.
type envelope struct {
	Data  any        `json:"data"`
	Error *errorBody `json:"error"`
	Meta  any        `json:"meta"`
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// listMeta is the meta of a list response.
type listMeta struct {
	Total  int64 `json:"total"`
	Limit  int   `json:"limit"`
	Offset int   `json:"offset"`
	Page   int   `json:"page"`
}

var emptyMeta = struct{}{}

// respond writes data in the envelope with status.
func respond(c *gin.Context, status int, data any) error {
	c.JSON(status, envelope{Data: data, Meta: emptyMeta})
	return nil
}

// respondList writes a page of a list with its pagination meta. data is
// usually the page's items; the audit log wraps them ({logs, total}) as
// SPEC.md shows it, so data is whatever the list's body is. total is the
// number of items matching the query across all pages, never len(items).
func respondList(c *gin.Context, data any, total int64, p page) error {
	c.JSON(http.StatusOK, envelope{Data: data, Meta: p.meta(total)})
	return nil
}

// deleted is the body of a successful delete.
func deleted(c *gin.Context, id string) error {
	return respond(c, http.StatusOK, gin.H{"id": id, "deleted": true})
}

// renderError writes err as the error envelope. Unknown errors become
// internal_error and are logged with the request id, never shown.
func renderError(c *gin.Context, err error) {
	pub := errs.Public(err)
	if pub.Status >= 500 {
		logger(c).Error("request failed", "error", err)
	}
	c.AbortWithStatusJSON(pub.Status, envelope{Error: &errorBody{Code: pub.Code, Message: pub.Message}, Meta: emptyMeta})
}

// handler is a gin handler that returns its error instead of writing it.
type handler func(c *gin.Context) error

func (h handler) gin() gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			renderError(c, err)
		}
	}
}

// maxJSONBody bounds request bodies of JSON endpoints.
const maxJSONBody = 1 << 20

// bindJSON decodes the request body into dst strictly: unknown fields,
// trailing data, wrong types and oversize bodies are 400/413 with a message
// that says what is wrong.
func bindJSON(c *gin.Context, dst any) error {
	raw, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxJSONBody))
	if err != nil {
		return jsonError(err)
	}
	// A NUL is valid JSON in a string, but no field of ours may hold one and
	// PostgreSQL refuses it in text: reject it here as bad input.
	if bytes.Contains(raw, []byte(`\u0000`)) || bytes.IndexByte(raw, 0) >= 0 {
		return errs.BadRequest("request body must not contain NUL characters")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return errs.BadRequest("request body must be a single JSON object")
	}
	return nil
}

func jsonError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, io.EOF):
		return errs.BadRequest("request body is empty; send a JSON object")
	case errors.As(err, &tooBig):
		return errs.PayloadTooLarge("request body exceeds %d bytes", maxJSONBody)
	case errors.As(err, &syntax):
		return errs.BadRequest("request body is not valid JSON (at byte %d)", syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return errs.BadRequest("field %q must be of type %s", typ.Field, typ.Type.String())
		}
		return errs.BadRequest("request body must be a JSON object")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errs.BadRequest("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errs.BadRequest("request body is not valid JSON")
}

// page is a validated limit/offset pair.
type page struct{ Limit, Offset int }

// meta is the list meta of this page of total items. page counts from 1
// and is offset/limit + 1 (DECISIONS.md), so an offset that is not a
// multiple of limit lands on the page holding its first item.
func (p page) meta(total int64) listMeta {
	return listMeta{Total: total, Limit: p.Limit, Offset: p.Offset, Page: p.Offset/p.Limit + 1}
}

// parsePage reads limit and offset, the one way every list endpoint does:
// a missing limit is def, a limit above maxPageLimit is clamped to it, a
// missing offset is 0, and a negative or non-numeric value is 400
// (DECISIONS.md "Wire conventions"). A limit of 0 is refused too: it
// would make page (offset/limit + 1) undefined and ask for nothing.
func parsePage(c *gin.Context, def int) (page, error) {
	p := page{Limit: def}
	if v, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(v)
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-") {
			// A positive number too large for an int is still a number
			// above the maximum: clamp it like any other.
			n, err = maxPageLimit, nil
		}
		if err != nil || n < 1 {
			return p, errs.BadRequest("limit must be a positive integer (values above %d are clamped)", maxPageLimit)
		}
		p.Limit = min(n, maxPageLimit)
	}
	if v, ok := c.GetQuery("offset"); ok {
		n, err := strconv.Atoi(v)
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-") {
			// Unlike limit there is no maximum to clamp to; say why a
			// number was refused.
			return p, errs.BadRequest("offset must be a non-negative integer of at most %d", math.MaxInt)
		}
		if err != nil || n < 0 {
			return p, errs.BadRequest("offset must be a non-negative integer")
		}
		p.Offset = n
	}
	return p, nil
}

// Pagination defaults of SPEC.md ("Pagination", "Limits"); the audit log
// has its own default (auditlog.go) but the same maximum.
const (
	defaultPageLimit = 20
	maxPageLimit     = 200
)
