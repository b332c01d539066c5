package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dqs/dqs/analysis"
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
		"File.profile":  resolve(t, doc, dig(schemas, "File", "properties", "profile"))["properties"],
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

// TestOpenAPIOperationsHaveExamples holds every operation to this rule, so
// that each one shows a client what to send and what comes back:
//
//   - every media type of its request body has an `example` or a non-empty
//     `examples`;
//   - every success response (1xx, 2xx or 3xx) does too, for each of its
//     media types; a success response without a body (a redirect, a
//     protocol switch) gives an example of one of its headers instead
//     (`Location`, `Upgrade`);
//   - every operation has at least one success response;
//   - every example, inline or a $ref into components.examples, is valid
//     against the schema beside it (see conforms), so an example cannot
//     drift from the type it illustrates.
func TestOpenAPIOperationsHaveExamples(t *testing.T) {
	doc := openAPIDoc(t)
	for _, o := range operations(t, doc) {
		if rb := resolve(t, doc, o.op["requestBody"]); rb != nil {
			checkMediaExamples(t, doc, o.key+" request body", rb)
		}
		responses, _ := o.op["responses"].(map[string]any)
		successes := 0
		for code, r := range responses {
			if code == "" || code[0] < '1' || code[0] > '3' {
				continue
			}
			successes++
			at := o.key + " " + code
			resp := resolve(t, doc, r)
			if resp == nil {
				t.Errorf("%s: response does not resolve", at)
				continue
			}
			if content, _ := resp["content"].(map[string]any); len(content) > 0 {
				checkMediaExamples(t, doc, at, resp)
				continue
			}
			headers, _ := resp["headers"].(map[string]any)
			shown := false
			for name, h := range headers {
				hm := resolve(t, doc, h)
				if hm == nil {
					continue
				}
				if ex, ok := examplesOf(t, doc, at+" header "+name, hm); ok {
					shown = true
					for _, e := range ex {
						expectConforms(t, doc, at+" header "+name+" example "+e.name, hm["schema"], e.value)
					}
				}
			}
			if !shown {
				t.Errorf("%s: a success response without a body needs an example of one of its headers", at)
			}
		}
		if successes == 0 {
			t.Errorf("%s: no success response", o.key)
		}
	}
}

// checkMediaExamples checks that each media type of a request body or
// response has examples that conform to its schema.
func checkMediaExamples(t *testing.T, doc map[string]any, at string, holder map[string]any) {
	t.Helper()
	content, _ := holder["content"].(map[string]any)
	if len(content) == 0 {
		t.Errorf("%s: no content", at)
	}
	for mediaType, m := range content {
		mt, _ := m.(map[string]any)
		ex, ok := examplesOf(t, doc, at+" "+mediaType, mt)
		if !ok {
			t.Errorf("%s %s: no example", at, mediaType)
			continue
		}
		for _, e := range ex {
			expectConforms(t, doc, at+" "+mediaType+" example "+e.name, mt["schema"], e.value)
		}
	}
}

type namedExample struct {
	name  string
	value any
}

// examplesOf returns the `example` or the values of the `examples` of a
// media type, parameter or header; ok is false when it has none.
func examplesOf(t *testing.T, doc map[string]any, at string, holder map[string]any) (out []namedExample, ok bool) {
	t.Helper()
	if v, has := holder["example"]; has {
		out = append(out, namedExample{"example", v})
	}
	exs, _ := holder["examples"].(map[string]any)
	for name, e := range exs {
		em := resolve(t, doc, e)
		v, has := em["value"]
		if !has {
			t.Errorf("%s: example %s has no value (or its $ref does not resolve)", at, name)
			continue
		}
		out = append(out, namedExample{name, v})
	}
	return out, len(out) > 0
}

func expectConforms(t *testing.T, doc map[string]any, at string, schema, value any) {
	t.Helper()
	if schema == nil {
		t.Errorf("%s: no schema to check the example against", at)
		return
	}
	for _, p := range conforms(doc, schema, value, "") {
		t.Errorf("%s: %s", at, p)
	}
}

// schemaKeywords are the keywords conforms understands: assertions it
// checks, and annotations that assert nothing. A schema using any other
// keyword fails TestOpenAPIObjectsAreTyped, so that conforms cannot pass an
// example by ignoring a rule it does not know.
var schemaKeywords = map[string]bool{
	"$ref": true, "type": true, "const": true, "enum": true,
	"properties": true, "required": true, "additionalProperties": true,
	"items": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"allOf": true, "anyOf": true, "oneOf": true,
	"minimum": true, "maximum": true, "minLength": true, "maxLength": true, "pattern": true,
	// Annotations.
	"description": true, "format": true, "default": true, "example": true, "examples": true,
	"contentMediaType": true, "x-dqs-open": true,
}

// conforms checks value (decoded JSON) against schema, a JSON Schema 2020-12
// subset: the keywords of schemaKeywords. It returns the problems found,
// each with the JSON pointer of the value.
func conforms(doc map[string]any, schema, value any, at string) []string {
	s, ok := schema.(map[string]any)
	if !ok {
		if schema == false {
			return []string{at + ": not allowed here"}
		}
		return nil // true or absent: anything goes
	}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, at+": "+fmt.Sprintf(format, args...)) }
	if ref, ok := s["$ref"].(string); ok {
		target, found := pointer(doc, ref)
		if !found {
			fail("$ref %s does not resolve", ref)
		} else {
			problems = append(problems, conforms(doc, target, value, at)...)
		}
	}
	if typ, ok := s["type"]; ok {
		types, _ := typ.([]any)
		if name, ok := typ.(string); ok {
			types = []any{name}
		}
		matched := false
		for _, name := range types {
			matched = matched || jsonTypeIs(value, name.(string))
		}
		if !matched {
			fail("%s is not of type %v", compactJSON(value), typ)
			return problems // the other keywords would only repeat it
		}
	}
	if c, ok := s["const"]; ok && !reflect.DeepEqual(c, value) {
		fail("%s is not %s", compactJSON(value), compactJSON(c))
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || reflect.DeepEqual(e, value)
		}
		if !found {
			fail("%s is not one of %s", compactJSON(value), compactJSON(enum))
		}
	}
	for _, sub := range asList(s["allOf"]) {
		problems = append(problems, conforms(doc, sub, value, at)...)
	}
	if any := asList(s["anyOf"]); len(any) > 0 {
		n := 0
		for _, sub := range any {
			if len(conforms(doc, sub, value, at)) == 0 {
				n++
			}
		}
		if n == 0 {
			fail("%s matches none of anyOf", compactJSON(value))
		}
	}
	if one := asList(s["oneOf"]); len(one) > 0 {
		n := 0
		for _, sub := range one {
			if len(conforms(doc, sub, value, at)) == 0 {
				n++
			}
		}
		if n != 1 {
			fail("%s matches %d of oneOf, want exactly 1", compactJSON(value), n)
		}
	}
	switch v := value.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range asList(s["required"]) {
			if _, ok := v[r.(string)]; !ok {
				fail("required %q is missing", r)
			}
		}
		for k, pv := range v {
			if ps, ok := props[k]; ok {
				problems = append(problems, conforms(doc, ps, pv, at+"/"+k)...)
			} else if ap, ok := s["additionalProperties"]; ok {
				problems = append(problems, conforms(doc, ap, pv, at+"/"+k)...)
			}
		}
	case []any:
		if items, ok := s["items"]; ok {
			for i, iv := range v {
				problems = append(problems, conforms(doc, items, iv, fmt.Sprintf("%s/%d", at, i))...)
			}
		}
		if m, ok := s["minItems"].(float64); ok && float64(len(v)) < m {
			fail("%d items, fewer than %v", len(v), m)
		}
		if m, ok := s["maxItems"].(float64); ok && float64(len(v)) > m {
			fail("%d items, more than %v", len(v), m)
		}
		if s["uniqueItems"] == true {
			seen := map[string]bool{}
			for _, iv := range v {
				k := compactJSON(iv)
				if seen[k] {
					fail("item %s repeats", k)
				}
				seen[k] = true
			}
		}
	case float64:
		if m, ok := s["minimum"].(float64); ok && v < m {
			fail("%v is below %v", v, m)
		}
		if m, ok := s["maximum"].(float64); ok && v > m {
			fail("%v is above %v", v, m)
		}
	case string:
		n := float64(len([]rune(v)))
		if m, ok := s["minLength"].(float64); ok && n < m {
			fail("%q is shorter than %v", v, m)
		}
		if m, ok := s["maxLength"].(float64); ok && n > m {
			fail("%q is longer than %v", v, m)
		}
		if p, ok := s["pattern"].(string); ok {
			if re, err := regexp.Compile(p); err != nil {
				fail("pattern %q does not compile: %v", p, err)
			} else if !re.MatchString(v) {
				fail("%q does not match %s", v, p)
			}
		}
	}
	return problems
}

func jsonTypeIs(v any, name string) bool {
	switch name {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	}
	return false
}

func asList(v any) []any { l, _ := v.([]any); return l }

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

// TestOpenAPIConformsFindsProblems keeps conforms honest: an example check that
// accepted everything would make TestOpenAPIOperationsHaveExamples pass
// on any document.
func TestOpenAPIConformsFindsProblems(t *testing.T) {
	doc := openAPIDoc(t)
	job := map[string]any{"$ref": "#/components/schemas/Job"}
	good := dig(doc, "components", "examples", "JobCompleted", "value", "data")
	if p := conforms(doc, job, good, ""); len(p) != 0 {
		t.Fatalf("the JobCompleted example does not conform: %v", p)
	}
	for name, mutate := range map[string]func(m map[string]any){
		"required missing":   func(m map[string]any) { delete(m, "status") },
		"not in the enum":    func(m map[string]any) { m["status"] = "finished" },
		"wrong type":         func(m map[string]any) { m["progress"] = "100" },
		"not an integer":     func(m map[string]any) { m["progress"] = 12.5 },
		"above the maximum":  func(m map[string]any) { m["progress"] = 101.0 },
		"pattern":            func(m map[string]any) { m["id"] = "job_k3m7q2xa9bzt" },
		"null not allowed":   func(m map[string]any) { m["created_at"] = nil },
		"nested item":        func(m map[string]any) { m["files"].([]any)[0].(map[string]any)["file_name"] = 7.0 },
		"oneOf in allOf ref": func(m map[string]any) { m["null_tokens"] = []any{""} },
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(compactJSONFull(good)), &m); err != nil {
			t.Fatal(err)
		}
		mutate(m)
		if len(conforms(doc, job, m, "")) == 0 {
			t.Errorf("%s: conforms found no problem", name)
		}
	}
}

func compactJSONFull(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestOpenAPIObjectsAreTyped: every schema of the document (components,
// parameters, headers, bodies, and all they nest) that is an object says
// what its keys are. Precisely, a schema whose `type` is or includes
// `object` must
//
//   - declare `properties` (at least one), or be composed (`$ref`, `allOf`,
//     `oneOf`, `anyOf`), or
//   - declare `additionalProperties` as a schema (a map with typed values)
//     or as false (an always empty object);
//
// and wherever `additionalProperties` is `true` (free keys, with or
// without properties) the schema carries `x-dqs-open`, a sentence saying
// why its keys cannot be listed. Every schema also uses only the keywords
// conforms understands.
func TestOpenAPIObjectsAreTyped(t *testing.T) {
	doc := openAPIDoc(t)
	checked := 0
	forEachSchema(doc, func(at string, s map[string]any) {
		checked++
		for k := range s {
			if !schemaKeywords[k] {
				t.Errorf("%s: keyword %q is not one conforms checks; teach it to conforms or use another", at, k)
			}
		}
		ap, hasAP := s["additionalProperties"]
		if ap == true {
			if why, _ := s["x-dqs-open"].(string); strings.TrimSpace(why) == "" {
				t.Errorf("%s: additionalProperties is true without an x-dqs-open saying why the keys are free", at)
			}
		} else if _, has := s["x-dqs-open"]; has {
			t.Errorf("%s: x-dqs-open on a schema whose keys are not free", at)
		}
		isObject := s["type"] == "object"
		for _, typ := range asList(s["type"]) {
			isObject = isObject || typ == "object"
		}
		if !isObject {
			return
		}
		props, _ := s["properties"].(map[string]any)
		composed := s["$ref"] != nil || s["allOf"] != nil || s["oneOf"] != nil || s["anyOf"] != nil
		if len(props) == 0 && !composed && !hasAP {
			t.Errorf("%s: an object without properties or additionalProperties: type its keys", at)
		}
	})
	if checked < 100 {
		t.Errorf("only %d schemas were found; forEachSchema is missing some", checked)
	}
}

// forEachSchema calls fn for every schema of the document, with its JSON
// pointer: those of components.schemas, the `schema` of every parameter,
// header and media type, and every schema nested in them.
func forEachSchema(doc map[string]any, fn func(at string, s map[string]any)) {
	var visit func(at string, v any)
	visit = func(at string, v any) {
		s, ok := v.(map[string]any)
		if !ok {
			return
		}
		fn(at, s)
		for _, k := range []string{"items", "additionalProperties"} {
			visit(at+"/"+k, s[k])
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			for i, sub := range asList(s[k]) {
				visit(fmt.Sprintf("%s/%s/%d", at, k, i), sub)
			}
		}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			visit(at+"/properties/"+name, p)
		}
	}
	schemas, _ := dig(doc, "components", "schemas").(map[string]any)
	for name, s := range schemas {
		visit("#/components/schemas/"+name, s)
	}
	// Elsewhere a schema is the value of a `schema` key; examples are data
	// and are not searched.
	var find func(at string, v any)
	find = func(at string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				switch k {
				case "example", "examples":
				case "schema":
					visit(at+"/schema", c)
				default:
					if at == "#/components" && k == "schemas" {
						continue
					}
					find(at+"/"+k, c)
				}
			}
		case []any:
			for i, c := range x {
				find(fmt.Sprintf("%s/%d", at, i), c)
			}
		}
	}
	find("#", doc)
}

// TestOpenAPIFileProfileMatchesEngine: the profile a file's analysis
// stores, and GET /files/{id} answers as it is, conforms to FileProfile,
// and the engine sends no key the schema does not declare. The file has a
// personal column (masked values), a text, a numeric and a date column, a
// duplicate row and a missing value, so the optional parts are present.
func TestOpenAPIFileProfileMatchesEngine(t *testing.T) {
	doc := openAPIDoc(t)
	csv := "email,city,amount,signup\n" +
		"ada@example.com,Paris,12.50,2024-01-03\n" +
		"bob@example.org,paris,7.00,2024-02-11\n" +
		",Rome,1200.00,2024-03-05\n" +
		"dan@example.net,Rome,9.25,2024-03-09\n" +
		"dan@example.net,Rome,9.25,2024-03-09\n"
	res, err := analysis.Run(context.Background(), bytes.NewReader([]byte(csv)), "customers.csv", int64(len(csv)), analysis.Dialect{}, analysis.Limits{}, nil)
	if err != nil {
		t.Fatalf("analysis.Run: %v", err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var sent any
	if err := json.Unmarshal(raw, &sent); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"$ref": "#/components/schemas/FileProfile"}
	for _, p := range conforms(doc, schema, sent, "") {
		t.Errorf("the engine's profile does not conform to FileProfile: %s", p)
	}
	for _, k := range undeclared(doc, schema, sent, "") {
		t.Errorf("the engine sends %s, which FileProfile does not declare", k)
	}
	if dig(sent, "quality", "issues") == nil || dig(sent, "csv", "delimiter") == nil {
		t.Errorf("the profile lacks the parts this test means to check: %s", raw)
	}
}

// undeclared lists the keys of value's objects that the matching schema
// objects (following $ref, allOf, properties and items) do not declare.
func undeclared(doc map[string]any, schema, value any, at string) []string {
	s, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		target, _ := pointer(doc, ref)
		return undeclared(doc, target, value, at)
	}
	props := map[string]any{}
	for _, sub := range append([]any{s}, asList(s["allOf"])...) {
		if sub, ok := sub.(map[string]any); ok {
			if ref, ok := sub["$ref"].(string); ok {
				target, _ := pointer(doc, ref)
				sub, _ = target.(map[string]any)
			}
			if p, ok := sub["properties"].(map[string]any); ok {
				for k, v := range p {
					props[k] = v
				}
			}
		}
	}
	var out []string
	switch v := value.(type) {
	case map[string]any:
		for k, kv := range v {
			ps, ok := props[k]
			if !ok && len(props) > 0 && s["additionalProperties"] == nil {
				out = append(out, at+"/"+k)
				continue
			}
			out = append(out, undeclared(doc, ps, kv, at+"/"+k)...)
		}
	case []any:
		for i, iv := range v {
			out = append(out, undeclared(doc, s["items"], iv, fmt.Sprintf("%s/%d", at, i))...)
		}
	}
	return out
}
