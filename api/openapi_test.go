package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dqs/dqs/api"
	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/ratelimit"
)

// The OpenAPI document (api/openapi.yaml) is written by hand; these tests
// fail when it and the router disagree, or when it is not a well-formed
// OpenAPI 3.1 document in the ways that matter to clients.

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// openAPIServer builds the real router. Listing routes and serving the
// public document need no database, so only the config, logger and an
// in-memory rate limiter are set.
func openAPIServer(t *testing.T) *api.Server {
	t.Helper()
	srv, err := api.New(api.Deps{
		Config:  config.Defaults(),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limiter: ratelimit.NewMemory(),
		Version: "test",
	})
	if err != nil {
		t.Fatalf("api.New: %v", err)
	}
	return srv
}

// openAPIDoc parses the document as generic JSON.
func openAPIDoc(t *testing.T) map[string]any {
	t.Helper()
	raw, err := api.OpenAPIJSON()
	if err != nil {
		t.Fatalf("OpenAPIJSON: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("OpenAPI document is not a JSON object: %v", err)
	}
	return doc
}

var ginParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// openAPIPath converts a gin path (/users/:id) to OpenAPI form (/users/{id}).
func openAPIPath(ginPath string) string { return ginParam.ReplaceAllString(ginPath, "{$1}") }

// docOperation is one operation of the document.
type docOperation struct {
	key      string // "GET /api/v1/users/{id}"
	path     string
	pathItem map[string]any
	op       map[string]any
}

func operations(t *testing.T, doc map[string]any) []docOperation {
	t.Helper()
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		t.Fatalf("document has no paths object")
	}
	var out []docOperation
	for path, v := range paths {
		item, ok := v.(map[string]any)
		if !ok {
			t.Errorf("path %s is not an object", path)
			continue
		}
		for _, m := range httpMethods {
			if o, ok := item[m]; ok {
				op, ok := o.(map[string]any)
				if !ok {
					t.Errorf("%s %s is not an object", strings.ToUpper(m), path)
					continue
				}
				out = append(out, docOperation{key: strings.ToUpper(m) + " " + path, path: path, pathItem: item, op: op})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

func routeKey(r api.RouteInfo) string { return strings.ToUpper(r.Method) + " " + openAPIPath(r.Path) }

func TestOpenAPIMatchesRoutes(t *testing.T) {
	srv := openAPIServer(t)
	doc := openAPIDoc(t)

	routes := map[string]api.RouteInfo{}
	for _, r := range srv.Routes() {
		routes[routeKey(r)] = r
	}
	if len(routes) == 0 {
		t.Fatal("the router has no routes")
	}
	documented := map[string]docOperation{}
	for _, o := range operations(t, doc) {
		documented[o.key] = o
	}

	var missing, extra []string
	for k := range routes {
		if _, ok := documented[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if _, ok := routes[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	for _, k := range missing {
		t.Errorf("route %s is not in api/openapi.yaml", k)
	}
	for _, k := range extra {
		t.Errorf("api/openapi.yaml documents %s, which the router does not serve", k)
	}
}

// TestOpenAPIAccessMatchesRoutes checks the security, x-dqs-access,
// x-dqs-role and x-dqs-scope of each operation against the route table, so
// the document cannot say a route is public, or which key scope it needs,
// differently from the middleware.
func TestOpenAPIAccessMatchesRoutes(t *testing.T) {
	srv := openAPIServer(t)
	doc := openAPIDoc(t)
	schemes, _ := dig(doc, "components", "securitySchemes").(map[string]any)
	if len(schemes) == 0 {
		t.Fatal("components.securitySchemes is empty")
	}
	if _, ok := schemes["bearerAuth"]; !ok {
		t.Error("components.securitySchemes has no bearerAuth")
	}
	if _, ok := doc["security"]; ok {
		t.Error("document-level security is set; declare security on each operation instead")
	}
	ops := map[string]docOperation{}
	for _, o := range operations(t, doc) {
		ops[o.key] = o
	}
	accessName := map[api.Access]string{api.Public: "public", api.Session: "session", api.Any: "any"}

	for _, r := range srv.Routes() {
		k := routeKey(r)
		o, ok := ops[k]
		if !ok {
			continue // reported by TestOpenAPIMatchesRoutes
		}
		sec, hasSec := o.op["security"]
		reqs, isList := sec.([]any)
		switch {
		case !hasSec || !isList:
			t.Errorf("%s: no security list (public routes need `security: []`)", k)
		case r.Access == api.Public && len(reqs) != 0:
			t.Errorf("%s: public route must declare `security: []`, has %v", k, reqs)
		case r.Access != api.Public && len(reqs) == 0:
			t.Errorf("%s: route needs a credential but declares no security requirement", k)
		default:
			for _, req := range reqs {
				m, ok := req.(map[string]any)
				if !ok || len(m) == 0 {
					t.Errorf("%s: security requirement %v is not a non-empty object", k, req)
					continue
				}
				for name := range m {
					if _, ok := schemes[name]; !ok {
						t.Errorf("%s: security scheme %q is not in components.securitySchemes", k, name)
					}
				}
			}
		}

		if got := o.op["x-dqs-access"]; got != accessName[r.Access] {
			t.Errorf("%s: x-dqs-access = %v, route table says %q", k, got, accessName[r.Access])
		}
		role := string(r.Role)
		if role == "" {
			role = string(models.RoleMember)
		}
		if got := o.op["x-dqs-role"]; got != role {
			t.Errorf("%s: x-dqs-role = %v, route table says %q", k, got, role)
		}
		got, has := o.op["x-dqs-scope"]
		if r.Access == api.Any {
			if got != string(r.Scope) {
				t.Errorf("%s: x-dqs-scope = %v, route table says %q", k, got, r.Scope)
			}
		} else if has {
			t.Errorf("%s: x-dqs-scope = %v on a route that refuses API keys", k, got)
		}

		responses, _ := o.op["responses"].(map[string]any)
		if r.Access != api.Public {
			for _, code := range []string{"401", "403"} {
				if _, ok := responses[code]; !ok {
					t.Errorf("%s: authenticated route does not document %s", k, code)
				}
			}
		}
		if _, ok := responses["429"]; !ok {
			t.Errorf("%s: does not document 429 (every route is rate limited)", k)
		}
	}
}

func TestOpenAPIDocumentIsWellFormed(t *testing.T) {
	doc := openAPIDoc(t)

	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1") {
		t.Errorf("openapi = %q, want 3.1.x", v)
	}
	if title, _ := dig(doc, "info", "title").(string); title != "DQS API" {
		t.Errorf("info.title = %q, want %q", title, "DQS API")
	}
	if v, _ := dig(doc, "info", "version").(string); v == "" {
		t.Error("info.version is empty")
	}

	seen := map[string]string{}
	placeholder := regexp.MustCompile(`\{([^}]+)\}`)
	for _, o := range operations(t, doc) {
		id, _ := o.op["operationId"].(string)
		if id == "" {
			t.Errorf("%s: no operationId", o.key)
		} else if prev, dup := seen[id]; dup {
			t.Errorf("%s: operationId %q is also used by %s", o.key, id, prev)
		} else {
			seen[id] = o.key
		}
		if s, _ := o.op["summary"].(string); s == "" {
			t.Errorf("%s: no summary", o.key)
		}
		if s, _ := o.op["description"].(string); s == "" {
			t.Errorf("%s: no description", o.key)
		}
		responses, _ := o.op["responses"].(map[string]any)
		if len(responses) == 0 {
			t.Errorf("%s: no responses", o.key)
		}

		// Path parameters: path-item level ones apply, operation-level ones
		// override by (name, in).
		declared := map[string]bool{}
		for _, src := range []map[string]any{o.pathItem, o.op} {
			params, _ := src["parameters"].([]any)
			for _, p := range params {
				pm := resolve(t, doc, p)
				if pm == nil {
					t.Errorf("%s: parameter %v does not resolve", o.key, p)
					continue
				}
				if pm["in"] == "path" {
					name, _ := pm["name"].(string)
					declared[name] = true
					if pm["required"] != true {
						t.Errorf("%s: path parameter %q must be required", o.key, name)
					}
				}
			}
		}
		inPath := map[string]bool{}
		for _, m := range placeholder.FindAllStringSubmatch(o.path, -1) {
			inPath[m[1]] = true
			if !declared[m[1]] {
				t.Errorf("%s: path parameter {%s} is not declared", o.key, m[1])
			}
		}
		for name := range declared {
			if !inPath[name] {
				t.Errorf("%s: declares path parameter %q that is not in the path", o.key, name)
			}
		}
	}

	// Every $ref points at something that exists under #/components/.
	walk(doc, "#", func(at string, node map[string]any) {
		v, ok := node["$ref"]
		if !ok {
			return
		}
		ref, ok := v.(string)
		if !ok {
			t.Errorf("%s: $ref is not a string: %v", at, v)
			return
		}
		if !strings.HasPrefix(ref, "#/components/") {
			t.Errorf("%s: $ref %q does not point into #/components/", at, ref)
			return
		}
		if _, ok := pointer(doc, ref); !ok {
			t.Errorf("%s: $ref %q does not resolve", at, ref)
		}
	})
}

// TestOpenAPIAuditEventsMatchCode keeps the audit `event` enum equal to the
// codes the audit listing accepts.
func TestOpenAPIAuditEventsMatchCode(t *testing.T) {
	doc := openAPIDoc(t)
	enum, _ := dig(doc, "components", "schemas", "AuditEvent", "enum").([]any)
	var got []string
	for _, e := range enum {
		s, _ := e.(string)
		got = append(got, s)
	}
	want := append([]string(nil), audit.Events...)
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("components.schemas.AuditEvent.enum = %v\nwant audit.Events    %v", got, want)
	}
}

func TestOpenAPIServed(t *testing.T) {
	srv := openAPIServer(t)
	want, err := api.OpenAPIJSON()
	if err != nil {
		t.Fatalf("OpenAPIJSON: %v", err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/openapi.json = %d, want 200; body: %s", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if !bytes.Equal(rec.Body.Bytes(), want) {
		t.Errorf("served document differs from OpenAPIJSON() (%d vs %d bytes)", rec.Body.Len(), len(want))
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if rec.Header().Get(h) == "" {
			t.Errorf("response has no %s header", h)
		}
	}
}

// dig follows object keys.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// pointer resolves a local JSON pointer such as #/components/schemas/User.
func pointer(doc map[string]any, ref string) (any, bool) {
	rest, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	var v any = doc
	if rest == "" {
		return v, true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return v, true
}

// resolve returns the object v, following one $ref.
func resolve(t *testing.T, doc map[string]any, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		target, ok := pointer(doc, ref)
		if !ok {
			return nil
		}
		m, _ = target.(map[string]any)
	}
	return m
}

// walk calls fn for every object in v, with its JSON pointer.
func walk(v any, at string, fn func(at string, node map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(at, x)
		for k, c := range x {
			walk(c, at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), fn)
		}
	case []any:
		for i, c := range x {
			walk(c, fmt.Sprintf("%s/%d", at, i), fn)
		}
	}
}

// TestOpenAPIDocumentsCSVDialects: the three operations that read uploads
// take the four dialect parameters, described with an example, and the
// schemas show the dialect given and the one read, typed.
func TestOpenAPIDocumentsCSVDialects(t *testing.T) {
	doc := openAPIDoc(t)
	byID := map[string]docOperation{}
	for _, o := range operations(t, doc) {
		if id, ok := o.op["operationId"].(string); ok {
			byID[id] = o
		}
	}
	for _, id := range []string{"uploadJobFiles", "publicUpload", "prescanFile"} {
		o, ok := byID[id]
		if !ok {
			t.Errorf("no operation %s", id)
			continue
		}
		query := map[string]map[string]any{}
		params, _ := o.op["parameters"].([]any)
		for _, p := range params {
			if p := resolve(t, doc, p); p != nil && p["in"] == "query" {
				query[p["name"].(string)] = p
			}
		}
		for _, name := range []string{"delimiter", "quote", "header", "encoding"} {
			p := query[name]
			if p == nil {
				t.Errorf("%s: no query parameter %s", id, name)
				continue
			}
			if d, _ := p["description"].(string); len(d) < 40 || p["example"] == nil || dig(p, "schema", "type") != "string" || p["required"] != false {
				t.Errorf("%s: parameter %s = %v", id, name, p)
			}
		}
		if d, _ := o.op["description"].(string); !strings.Contains(d, "`delimiter`") {
			t.Errorf("%s: the description does not mention the dialect", id)
		}
	}
	schemas := dig(doc, "components", "schemas").(map[string]any)
	for _, s := range []string{"File", "JobFile"} {
		p := resolve(t, doc, dig(schemas, s, "properties", "csv_dialect"))
		if p == nil || p["type"] != "object" || p["example"] == nil || dig(p, "properties", "header", "type") != "string" {
			t.Errorf("%s.csv_dialect = %v", s, p)
		}
	}
	for at, props := range map[string]any{
		"File.profile":  dig(schemas, "File", "properties", "profile", "properties"),
		"PrescanResult": dig(schemas, "PrescanResult", "properties"),
	} {
		rp := resolve(t, doc, dig(props, "records_path"))
		if rp == nil || rp["type"] != "string" || rp["example"] == nil {
			t.Errorf("%s.records_path = %v", at, rp)
		}
		csv := resolve(t, doc, dig(props, "csv"))
		if csv == nil || csv["type"] != "object" || csv["example"] == nil {
			t.Errorf("%s.csv = %v", at, csv)
			continue
		}
		for field, typ := range map[string]string{"delimiter": "string", "quote": "[string null]", "header_line": "[integer null]", "encoding": "string"} {
			if got := fmt.Sprint(dig(csv, "properties", field, "type")); got != typ {
				t.Errorf("%s.csv.%s is %s, want %s", at, field, got, typ)
			}
		}
	}
}

// TestOpenAPIListOperationsArePaged: exactly the list routes of
// listRoutes (pagination_test.go) document the limit and offset query
// parameters, as shared components with the defaults the service uses,
// and answer the list meta {total, limit, offset, page}; no other
// operation does.
func TestOpenAPIListOperationsArePaged(t *testing.T) {
	doc := openAPIDoc(t)
	meta := resolve(t, doc, map[string]any{"$ref": "#/components/schemas/ListMeta"})
	if meta == nil {
		t.Fatal("components.schemas.ListMeta is missing")
	}
	var required []string
	for _, f := range meta["required"].([]any) {
		required = append(required, f.(string))
	}
	sort.Strings(required)
	if got := strings.Join(required, ","); got != "limit,offset,page,total" {
		t.Errorf("ListMeta requires %s, want limit,offset,page,total", got)
	}
	for _, f := range []string{"total", "limit", "offset", "page"} {
		if dig(meta, "properties", f, "type") != "integer" {
			t.Errorf("ListMeta.%s is not an integer: %v", f, dig(meta, "properties", f))
		}
	}

	defaults := map[string]int{}
	for _, lr := range listRoutes {
		defaults["GET "+openAPIPath(lr.path)] = lr.defaultLimit
	}
	listed := 0
	for _, o := range operations(t, doc) {
		answersMeta := false
		walk(dig(o.op, "responses", "200"), "", func(_ string, n map[string]any) {
			answersMeta = answersMeta || n["$ref"] == "#/components/schemas/ListMeta"
		})
		// Query parameters by name; each must be a $ref to a shared
		// component so the lists cannot drift apart.
		params := map[string]map[string]any{}
		shared := map[string]bool{}
		for _, list := range []any{o.pathItem["parameters"], o.op["parameters"]} {
			ps, _ := list.([]any)
			for _, p := range ps {
				ref, _ := dig(p, "$ref").(string)
				rp := resolve(t, doc, p)
				if rp["in"] == "query" {
					name, _ := rp["name"].(string)
					params[name] = rp
					shared[name] = strings.HasPrefix(ref, "#/components/parameters/")
				}
			}
		}
		def, isList := defaults[o.key]
		_, hasLimit := params["limit"]
		_, hasOffset := params["offset"]
		if !isList {
			if answersMeta || hasLimit || hasOffset {
				t.Errorf("%s documents paging (list meta %v, limit %v, offset %v) but is not a list route of listRoutes", o.key, answersMeta, hasLimit, hasOffset)
			}
			continue
		}
		listed++
		if !answersMeta {
			t.Errorf("%s: the 200 response does not use ListMeta as meta", o.key)
		}
		for name, want := range map[string]map[string]any{
			"limit":  {"default": float64(def), "minimum": float64(1)},
			"offset": {"default": float64(0), "minimum": float64(0)},
		} {
			p, ok := params[name]
			if !ok || !shared[name] {
				t.Errorf("%s: query parameter %s is not declared as a shared component (#/components/parameters/...)", o.key, name)
				continue
			}
			if p["required"] == true {
				t.Errorf("%s: %s must be optional", o.key, name)
			}
			for k, v := range want {
				if got := dig(p, "schema", k); got != v {
					t.Errorf("%s: %s schema %s = %v, want %v", o.key, name, k, got, v)
				}
			}
			if dig(p, "schema", "type") != "integer" {
				t.Errorf("%s: %s is not an integer", o.key, name)
			}
			if name == "limit" && dig(p, "schema", "maximum") != nil {
				// Larger values are clamped, not refused: a maximum would
				// tell clients a valid request is invalid.
				t.Errorf("%s: limit declares a maximum, but values above 200 are clamped", o.key)
			}
		}
	}
	if listed != len(listRoutes) {
		t.Errorf("%d of the %d list routes are documented", listed, len(listRoutes))
	}
}
