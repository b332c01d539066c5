package sources

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/errs"
)

// fields are the credential keys of a kind (DECISIONS.md "Sources, scans,
// anomalies, contracts, lineage, alerts"): the ones it needs and the ones
// it may have.
type fields struct {
	required []string
	optional []string
	// oneOf: exactly one of these must be given (snowflake's password or
	// key pair).
	oneOf []string
}

var kinds = map[string]fields{
	connectors.S3:         {required: []string{"bucket"}, optional: []string{"prefix", "region", "access_key_id", "secret_access_key", "endpoint"}},
	connectors.GCS:        {required: []string{"bucket"}, optional: []string{"prefix", "service_account_json", "endpoint"}},
	connectors.PostgreSQL: {required: []string{"host", "database", "username"}, optional: []string{"port", "password", "sslmode"}},
	connectors.BigQuery:   {required: []string{"project_id", "dataset", "service_account_json"}},
	connectors.Snowflake:  {required: []string{"account", "warehouse", "database", "schema", "username"}, oneOf: []string{"password", "private_key"}},
}

// MaxCredentialBytes bounds a source's credentials as stored (a service
// account JSON is a few KiB; a PEM key less).
const MaxCredentialBytes = 64 << 10

// Config is a source's non-secret settings.
type Config struct {
	// Schema is the database schema of a table source (default public for
	// postgresql); object stores have none.
	Schema string `json:"schema,omitempty"`
	// ProfileMode is how a table source's scans profile a table:
	// ProfileExact (the default, also when empty) or ProfileSampled
	// (connectors.Options.SampledProfile); object stores have none.
	ProfileMode string `json:"profile_mode,omitempty"`
}

// Profile modes of a table source (Config.ProfileMode).
const (
	ProfileExact   = "exact"
	ProfileSampled = "sampled"
)

// Sampled reports whether the source's tables are profiled from samples.
func (c Config) Sampled() bool { return c.ProfileMode == ProfileSampled }

// Settings are what a user gives to connect a source.
type Settings struct {
	Type        string
	Credentials connectors.Credentials
	Config      Config
}

// ParseCredentials reads a credentials object as users write it: every
// value a string, a number (a port) or a boolean, written back as text;
// service_account_json may be the key file's object itself rather than its
// text. JSON null removes a key (on update).
func ParseCredentials(raw json.RawMessage) (map[string]*string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errs.BadRequest("credentials must be a JSON object of strings")
	}
	out := make(map[string]*string, len(m))
	for k, v := range m {
		t := strings.TrimSpace(string(v))
		switch {
		case t == "null":
			out[k] = nil
		case strings.HasPrefix(t, `"`):
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, errs.BadRequest("credentials.%s is not a valid string", clipKey(k))
			}
			out[k] = &s
		case strings.HasPrefix(t, "{") && k == "service_account_json":
			s := t
			out[k] = &s
		case t == "true" || t == "false":
			s := t
			out[k] = &s
		default:
			if _, err := strconv.ParseFloat(t, 64); err != nil {
				return nil, errs.BadRequest("credentials.%s must be a string, a number or a boolean", clipKey(k))
			}
			s := t
			out[k] = &s
		}
	}
	return out, nil
}

// ConfigUpdate is a config object as sent: the keys given, each with its
// value, or nil for JSON null (back to the default).
type ConfigUpdate map[string]*string

// ParseConfigUpdate reads a config object; keys other than schema and
// profile_mode are refused so that a misspelt setting does not pass
// unnoticed, and every value must be a string or null. Values are checked
// by Config.With.
func ParseConfigUpdate(raw json.RawMessage) (ConfigUpdate, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return ConfigUpdate{}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errs.BadRequest("config must be a JSON object")
	}
	u := make(ConfigUpdate, len(m))
	for k, v := range m {
		if k != "schema" && k != "profile_mode" {
			return nil, errs.BadRequest("config.%s is not a setting; config takes schema and profile_mode", clipKey(k))
		}
		if string(v) == "null" {
			u[k] = nil
			continue
		}
		var text string
		if err := json.Unmarshal(v, &text); err != nil {
			return nil, errs.BadRequest("config.%s must be a string", k)
		}
		u[k] = &text
	}
	return u, nil
}

// With applies an update to a config: keys given replace the stored ones,
// null resets one to its default, the others stay (an update that sets
// profile_mode keeps the schema). The result is checked and normalised:
// schema trimmed, at most 128 bytes; profile_mode exact or sampled, the
// default stored as no setting.
func (c Config) With(u ConfigUpdate) (Config, error) {
	for k, v := range u {
		field := &c.Schema
		if k == "profile_mode" {
			field = &c.ProfileMode
		}
		*field = ""
		if v != nil {
			*field = *v
		}
	}
	c.Schema = strings.TrimSpace(c.Schema)
	if len(c.Schema) > 128 {
		return c, errs.BadRequest("config.schema is longer than 128 bytes")
	}
	switch strings.ToLower(strings.TrimSpace(c.ProfileMode)) {
	case "", ProfileExact:
		c.ProfileMode = "" // the default is stored as no setting
	case ProfileSampled:
		c.ProfileMode = ProfileSampled
	default:
		return c, errs.BadRequest("config.profile_mode must be %s or %s", ProfileExact, ProfileSampled)
	}
	return c, nil
}

// ParseConfig reads the config object of a new source (ParseConfigUpdate
// applied to the defaults).
func ParseConfig(raw json.RawMessage) (Config, error) {
	u, err := ParseConfigUpdate(raw)
	if err != nil {
		return Config{}, err
	}
	return Config{}.With(u)
}

// Merge applies an update to stored credentials: given keys replace,
// null removes.
func Merge(stored connectors.Credentials, update map[string]*string) connectors.Credentials {
	out := make(connectors.Credentials, len(stored)+len(update))
	for k, v := range stored {
		out[k] = v
	}
	for k, v := range update {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}

// Given turns parsed credentials of a new source into credentials (nulls
// dropped).
func Given(parsed map[string]*string) connectors.Credentials { return Merge(nil, parsed) }

// Check refuses a kind DQS does not know, credential keys the kind does
// not take, missing required ones, and oversize values, with a message
// that names them.
func (s Settings) Check() error {
	f, ok := kinds[s.Type]
	if !ok {
		return errs.BadRequest("type must be one of %s", strings.Join(connectors.Kinds, ", "))
	}
	allowed := slices.Concat(f.required, f.optional, f.oneOf)
	var unknown, missing []string
	size := 0
	for k, v := range s.Credentials {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, fmt.Sprintf("%q", clipKey(k)))
		}
		size += len(k) + len(v)
	}
	for _, k := range f.required {
		if strings.TrimSpace(s.Credentials[k]) == "" {
			missing = append(missing, k)
		}
	}
	sort.Strings(unknown)
	switch {
	case len(unknown) > 0:
		return errs.BadRequest("credentials of a %s source take %s; not %s", s.Type, strings.Join(allowed, ", "), strings.Join(unknown, ", "))
	case len(missing) > 0:
		return errs.BadRequest("credentials of a %s source need %s", s.Type, strings.Join(missing, ", "))
	case size > MaxCredentialBytes:
		return errs.BadRequest("credentials are larger than %d KiB", MaxCredentialBytes>>10)
	}
	if len(f.oneOf) > 0 {
		n := 0
		for _, k := range f.oneOf {
			if strings.TrimSpace(s.Credentials[k]) != "" {
				n++
			}
		}
		if n != 1 {
			return errs.BadRequest("credentials of a %s source need exactly one of %s", s.Type, strings.Join(f.oneOf, ", "))
		}
	}
	if s.Type == connectors.S3 && (s.Credentials["access_key_id"] == "") != (s.Credentials["secret_access_key"] == "") {
		return errs.BadRequest("credentials of an s3 source need both access_key_id and secret_access_key, or neither (role-based access)")
	}
	if p, ok := s.Credentials["port"]; ok {
		if n, err := strconv.Atoi(strings.TrimSpace(p)); err != nil || n < 1 || n > 65535 {
			return errs.BadRequest("credentials.port must be a port number (1 to 65535)")
		}
	}
	if _, err := connectors.ParseEndpoint(s.Type, s.Credentials["endpoint"], "https://storage.example.com"); err != nil {
		return errs.BadRequest("%s", strings.TrimPrefix(err.Error(), connectors.ErrInvalid.Error()+": "))
	}
	if s.Config.Schema != "" && connectors.IsObjectStore(s.Type) {
		return errs.BadRequest("config.schema applies to database and warehouse sources, not to %s", s.Type)
	}
	if s.Config.ProfileMode != "" && connectors.IsObjectStore(s.Type) {
		return errs.BadRequest("config.profile_mode applies to database and warehouse sources, not to %s (objects are read whole)", s.Type)
	}
	return nil
}

// Host is where a source connects, for the network guard: a host and
// port, or an endpoint URL. Empty for the cloud services' own endpoints
// (AWS S3, Google Cloud Storage, BigQuery), which are not a user's choice.
func (s Settings) Host() (host string, port int, url string) {
	c := s.Credentials
	switch s.Type {
	case connectors.PostgreSQL:
		port = 5432
		if p, err := strconv.Atoi(strings.TrimSpace(c["port"])); err == nil {
			port = p
		}
		return strings.TrimSpace(c["host"]), port, ""
	case connectors.S3, connectors.GCS:
		return "", 0, strings.TrimSpace(c["endpoint"])
	case connectors.Snowflake:
		return strings.TrimSpace(c["account"]) + ".snowflakecomputing.com", 443, ""
	}
	return "", 0, ""
}

// Secrets are the credential values a message must never show.
func (s Settings) Secrets() []string {
	var out []string
	for _, k := range []string{"password", "secret_access_key", "service_account_json", "private_key", "access_key_id"} {
		if v := s.Credentials[k]; v != "" {
			out = append(out, v)
		}
	}
	return out
}

func clipKey(k string) string { return connectors.Clip(k, 64) }
