package contracts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Bounds of an ODCS document.
const (
	// MaxODCSBytes bounds the document Import reads. A contract of a
	// table is a few KiB; parsing takes about 150 times the document's
	// size in memory, so the bound keeps one import near 40 MB.
	MaxODCSBytes = 256 << 10
	// MaxODCSDepth bounds the nesting of mappings and lists. ODCS nests
	// properties in properties, so the bound is generous but finite.
	MaxODCSDepth = 64
	// maxODCSNodes bounds the values of a document (the input bound
	// already does; this keeps a hostile flow style from going further).
	maxODCSNodes = 100_000
)

// kinds of a tree node.
type kind int

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kList
	kMap
)

func (k kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "list", "mapping"}[k]
}

// tnode is a document value, YAML or JSON alike: numbers keep their text
// so that percents convert exactly.
type tnode struct {
	kind  kind
	text  string // scalar text: a number's digits, a string, true/false
	keys  []string
	vals  []*tnode
	index map[string]int // key → position in keys
	items []*tnode
}

// set adds key: value to a mapping, false when key is already there.
func (n *tnode) set(key string, v *tnode) bool {
	if n.index == nil {
		n.index = map[string]int{}
	}
	if _, dup := n.index[key]; dup {
		return false
	}
	n.index[key] = len(n.keys)
	n.keys, n.vals = append(n.keys, key), append(n.vals, v)
	return true
}

// get is a mapping's value for key, nil when absent or not a mapping.
func (n *tnode) get(key string) *tnode {
	if n == nil || n.kind != kMap {
		return nil
	}
	if i, ok := n.index[key]; ok {
		return n.vals[i]
	}
	return nil
}

// str is a string value ("" when absent or not a string); numbers and
// booleans read as their text, as a YAML writer would mean them.
func (n *tnode) str() string {
	if n == nil {
		return ""
	}
	switch n.kind {
	case kString, kNumber, kBool:
		return n.text
	}
	return ""
}

// parseDocument reads YAML or JSON into a tree.
func parseDocument(data []byte) (*tnode, error) {
	if len(data) > MaxODCSBytes {
		return nil, fmt.Errorf("%w: the document is %d bytes, more than %d", ErrTooLarge, len(data), MaxODCSBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w: the document is empty", ErrODCS)
	}
	if t := bytes.TrimSpace(data); t[0] == '{' && json.Valid(t) {
		return parseJSON(t)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: not YAML or JSON: %s", ErrODCS, clip(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	budget := maxODCSNodes
	n, err := fromYAML(&doc, 0, &budget)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrODCS, err)
	}
	return n, nil
}

var errTooDeep = fmt.Errorf("nested more than %d levels", MaxODCSDepth)
var errTooMany = fmt.Errorf("more than %d values", maxODCSNodes)

func fromYAML(y *yaml.Node, depth int, budget *int) (*tnode, error) {
	if depth > MaxODCSDepth {
		return nil, errTooDeep
	}
	if *budget--; *budget < 0 {
		return nil, errTooMany
	}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &tnode{kind: kNull}, nil
		}
		return fromYAML(y.Content[0], depth, budget)
	case yaml.AliasNode:
		return nil, fmt.Errorf("line %d: YAML aliases are not supported; write the value out", y.Line)
	case yaml.SequenceNode:
		n := &tnode{kind: kList}
		for _, c := range y.Content {
			item, err := fromYAML(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, item)
		}
		return n, nil
	case yaml.MappingNode:
		n := &tnode{kind: kMap}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key must be a plain value", k.Line)
			}
			if k.Tag == "!!merge" {
				return nil, fmt.Errorf("line %d: YAML merge keys are not supported; write the values out", k.Line)
			}
			val, err := fromYAML(v, depth+1, budget)
			if err != nil {
				return nil, err
			}
			if !n.set(k.Value, val) {
				return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, clip(k.Value))
			}
		}
		return n, nil
	case yaml.ScalarNode:
		switch y.ShortTag() {
		case "!!null":
			return &tnode{kind: kNull}, nil
		case "!!bool":
			var b bool
			if err := y.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %s", y.Line, err)
			}
			return &tnode{kind: kBool, text: strconv.FormatBool(b)}, nil
		case "!!int", "!!float":
			return &tnode{kind: kNumber, text: yamlNumber(y)}, nil
		}
		return &tnode{kind: kString, text: y.Value}, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", y.Line)
}

// yamlNumber is a YAML number's decimal text: the text itself when it is
// a plain decimal, else the shortest decimal of its value (hex, octal,
// .inf and .nan read as "+Inf", "NaN", which no threshold accepts).
func yamlNumber(y *yaml.Node) string {
	if _, ok := shiftDecimal(y.Value, 0); ok {
		return y.Value
	}
	var f float64
	if err := y.Decode(&f); err != nil {
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// parseJSON reads a JSON document token by token, keeping numbers' text.
func parseJSON(data []byte) (*tnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	budget := maxODCSNodes
	n, err := jsonValue(dec, 0, &budget)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrODCS, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: text after the JSON document", ErrODCS)
	}
	return n, nil
}

func jsonValue(dec *json.Decoder, depth int, budget *int) (*tnode, error) {
	if depth > MaxODCSDepth {
		return nil, errTooDeep
	}
	if *budget--; *budget < 0 {
		return nil, errTooMany
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &tnode{kind: kNull}, nil
	case bool:
		return &tnode{kind: kBool, text: strconv.FormatBool(t)}, nil
	case json.Number:
		return &tnode{kind: kNumber, text: t.String()}, nil
	case string:
		return &tnode{kind: kString, text: t}, nil
	case json.Delim:
		switch t {
		case '[':
			n := &tnode{kind: kList}
			for dec.More() {
				item, err := jsonValue(dec, depth+1, budget)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, item)
			}
			_, err := dec.Token()
			return n, err
		case '{':
			n := &tnode{kind: kMap}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := jsonValue(dec, depth+1, budget)
				if err != nil {
					return nil, err
				}
				if !n.set(k, v) {
					return nil, fmt.Errorf("duplicate key %q", clip(k))
				}
			}
			_, err := dec.Token()
			return n, err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}
