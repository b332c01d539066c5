package readers

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// The footer (FileMetaData) is read, checked and cleaned here before
// arrow-go parses it, because the library trusts what it says:
//
//   - a schema element's num_children sizes the library's node lists: a
//     230-byte file whose root claims 2^31-1 children made it ask for
//     ~32 GiB, an out-of-memory that no recover catches. The schema must be
//     a tree that the list of elements really holds, at most maxSchemaDepth
//     deep (the library builds it recursively);
//   - a Thrift list's length sizes the slice it is decoded into: every list
//     must fit in the bytes left in the footer (an element takes one byte
//     at least);
//   - the "ARROW:schema" entry that Arrow writers add to the key-value
//     metadata is a flatbuffer the library decodes without checking it: a
//     children vector claiming 2^30 entries made it allocate ~90 GiB, and an
//     offset pointing back at its own table recurses until the stack
//     overflows (fatal too). The entry only restores Arrow-specific types
//     (durations, time zone names, large strings) that change none of the
//     text DQS profiles, except durations, which then read as the integers
//     Parquet stores. It is dropped; the Parquet schema alone types the
//     columns, as for files of every non-Arrow writer;
//   - footers written by newer writers may annotate a column with a logical
//     type this library does not know, and it then fails to build the
//     schema. Like other readers, such a column is read by its physical
//     (and legacy converted) type: the unknown annotation is dropped.

// maxSchemaDepth bounds the nesting of a Parquet schema. Real schemas are
// a few levels deep; arrow-go converts them recursively.
const maxSchemaDepth = 64

// maxPathBytes bounds a leaf column's dotted path, its name as DQS shows
// it: every leaf's path is held (several times over), so 300 leaves under
// 60 groups of 60 KB names took 4 GB. It is JSON's key limit too.
const maxPathBytes = maxKeyBytes

// chunkMetadataBytes is about what arrow-go's parsed metadata takes per
// column chunk (129,000 one-column row groups took ~150 MB): the footer
// bounds the chunks to what the budget holds at this cost.
const chunkMetadataBytes = 1 << 10

// arrowSchemaKey is the key-value entry dropped from footers (see above).
const arrowSchemaKey = "ARROW:schema"

// knownLogicalTypes are the LogicalType union members of parquet.thrift
// that arrow-go understands.
var knownLogicalTypes = map[int16]bool{
	1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true,
	10: true, 11: true, 12: true, 13: true, 14: true, 15: true, 16: true, 17: true, 18: true,
}

// readFooter reads the footer of a Parquet file of size bytes (whose magic
// bytes were checked), refusing one over maxBytes or of more column chunks
// than maxChunks, and returns it checked and cleaned, parsed by arrow-go.
func readFooter(f File, size, maxBytes, maxChunks int64) (*metadata.FileMetaData, error) {
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, fmt.Errorf("reading file: %w", err)
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n <= 0 || n > size-12 {
		return nil, malformedf("parquet: the footer length (%d bytes) does not fit in the file (%d bytes)", n, size)
	}
	if n > maxBytes {
		return nil, unsupportedf("parquet: the footer holds %s of metadata, more than the %s limit", aboutBytes(n), humanBytes(int(maxBytes)))
	}
	raw := make([]byte, n)
	if _, err := f.ReadAt(raw, size-8-n); err != nil {
		return nil, fmt.Errorf("reading file: %w", err)
	}
	clean, chunks, err := cleanFooter(raw)
	if errors.Is(err, errPathTooLong) {
		return nil, unsupportedf("parquet: %v", err)
	}
	if err != nil {
		return nil, malformedf("parquet: the footer is corrupt: %v", err)
	}
	if chunks > maxChunks {
		return nil, unsupportedf("parquet: the file has %d column chunks (row groups times columns), more than the %d its metadata may take in memory", chunks, maxChunks)
	}
	var md *metadata.FileMetaData
	err = guard("parquet: reading the footer", func() error {
		var err error
		md, err = metadata.NewFileMetaData(clean, nil)
		return classify("parquet: reading the footer", err)
	})
	if err != nil {
		return nil, err
	}
	md.SetSourceFileSize(size)
	return md, nil
}

// cleanFooter checks a thrift-compact FileMetaData and rewrites it without
// unknown logical types and without the Arrow schema entry. It also counts
// the column chunks of its row groups.
func cleanFooter(meta []byte) (clean []byte, chunks int64, err error) {
	r := &countingByteReader{r: bufio.NewReader(bytes.NewReader(meta)), limit: int64(len(meta))}
	out := make([]byte, 0, len(meta))
	var last, lastOut int16
	for {
		id, typ, err := readFieldHeader(r, &last)
		if err != nil {
			return nil, 0, err
		}
		if typ == 0 {
			return append(out, 0), chunks, nil
		}
		switch {
		case id == 4 && typ == tList: // row_groups: list<RowGroup>
			start := r.n
			var n int64
			if n, err = countChunks(r); err == nil {
				chunks += n
				out = appendFieldHeader(out, &lastOut, id, typ)
				out = append(out, meta[start:r.n]...)
			}
		case id == 2 && typ == tList: // schema: list<SchemaElement>
			out = appendFieldHeader(out, &lastOut, id, typ)
			out, err = copySchema(r, meta, out)
		case id == 5 && typ == tList: // key_value_metadata: list<KeyValue>
			out = appendFieldHeader(out, &lastOut, id, typ)
			out, err = copyKeyValues(r, meta, out)
		default:
			start := r.n
			if err = skipValue(r, typ, 1, true); err == nil {
				out = appendFieldHeader(out, &lastOut, id, typ)
				out = append(out, meta[start:r.n]...)
			}
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

// countChunks reads a list of RowGroup and returns how many column chunks
// they hold in all.
func countChunks(r *countingByteReader) (int64, error) {
	groups, err := readStructList(r, "row group")
	if err != nil {
		return 0, err
	}
	var chunks int64
	for range groups {
		err := readStruct(r, 1, func(id int16, typ byte) (bool, error) {
			if id != 1 || typ != tList { // columns: list<ColumnChunk>
				return false, nil
			}
			n, err := readStructList(r, "column chunk")
			if err != nil {
				return true, err
			}
			chunks += n
			for range n {
				if err := readStruct(r, 2, nil); err != nil {
					return true, err
				}
			}
			return true, nil
		})
		if err != nil {
			return 0, err
		}
	}
	return chunks, nil
}

// errPathTooLong: a leaf's dotted path passes maxPathBytes.
var errPathTooLong = errors.New("a column's path is too long")

// readStructList reads a list header whose elements must be structs and
// returns its length, which fits in what is left of r.
func readStructList(r *countingByteReader, what string) (int64, error) {
	n, et, err := readListHeader(r)
	if err != nil {
		return 0, err
	}
	if et != tStruct {
		return 0, fmt.Errorf("the %s list does not hold structs", what)
	}
	return n, nil
}

func appendListHeader(out []byte, n int64, elem byte) []byte {
	if n < 15 {
		return append(out, byte(n)<<4|elem)
	}
	return binary.AppendUvarint(append(out, 0xf0|elem), uint64(n))
}

// copySchema copies the schema elements, checking that they form a tree.
func copySchema(r *countingByteReader, meta, out []byte) ([]byte, error) {
	count, err := readStructList(r, "schema")
	if err != nil {
		return nil, err
	}
	out = appendListHeader(out, count, tStruct)
	// open holds, per enclosing group, how many of its children are still to
	// come; the root is the first element. path holds the length of the
	// dotted path of each enclosing group but the root.
	open := []int64{1}
	path := []int64{0}
	for k := int64(0); k < count; k++ {
		if len(open) == 0 {
			return nil, fmt.Errorf("the schema lists %d elements, but its groups hold only %d", count, k)
		}
		open[len(open)-1]--
		var children int32
		var name int64
		if out, children, name, err = copySchemaElement(r, meta, out); err != nil {
			return nil, err
		}
		length := int64(0)
		if k > 0 { // the root's name is no part of a path
			length = path[len(path)-1] + 1 + name
		}
		if length > maxPathBytes {
			return nil, fmt.Errorf("%w: schema element %d's dotted path takes %d bytes, more than the %s limit", errPathTooLong, k+1, length, humanBytes(maxPathBytes))
		}
		if children < 0 {
			return nil, fmt.Errorf("schema element %d declares %d children", k+1, children)
		}
		if int64(children) > count-k-1 {
			return nil, fmt.Errorf("schema element %d declares %d children, but only %d elements follow it", k+1, children, count-k-1)
		}
		if children > 0 {
			open = append(open, int64(children))
			path = append(path, length)
			if len(open) > maxSchemaDepth+1 {
				return nil, fmt.Errorf("the schema nests deeper than %d levels", maxSchemaDepth)
			}
		}
		for len(open) > 0 && open[len(open)-1] == 0 {
			open = open[:len(open)-1]
			path = path[:len(path)-1]
		}
	}
	if len(open) != 0 {
		return nil, fmt.Errorf("the schema's groups declare more children than its %d elements", count)
	}
	return out, nil
}

// copySchemaElement copies one SchemaElement without an unknown logical
// type, and returns its num_children (0 when absent) and the length of its
// name.
func copySchemaElement(r *countingByteReader, meta []byte, out []byte) ([]byte, int32, int64, error) {
	var children int32
	var name int64
	var last, lastOut int16
	for {
		id, typ, err := readFieldHeader(r, &last)
		if err != nil {
			return nil, 0, 0, err
		}
		if typ == 0 {
			return append(out, 0), children, name, nil
		}
		start := r.n
		drop := false
		switch {
		case id == 5 && typ == tI32:
			if children, err = readI32(r); err != nil {
				return nil, 0, 0, err
			}
		case id == 4 && typ == tBinary:
			if err := skipValue(r, typ, 1, true); err != nil {
				return nil, 0, 0, err
			}
			name = r.n - start - int64(varintLen(meta[start:]))
		case id == 10 && typ == tStruct:
			var inner int16
			member, mtyp, err := readFieldHeader(r, &inner)
			if err != nil {
				return nil, 0, 0, err
			}
			if mtyp != 0 {
				if err := skipValue(r, mtyp, 2, true); err != nil {
					return nil, 0, 0, err
				}
				if err := readStruct(r, 2, nil); err != nil {
					return nil, 0, 0, err
				}
			}
			drop = mtyp == 0 || !knownLogicalTypes[member]
		default:
			if err := skipValue(r, typ, 1, true); err != nil {
				return nil, 0, 0, err
			}
		}
		if !drop {
			out = appendFieldHeader(out, &lastOut, id, typ)
			out = append(out, meta[start:r.n]...)
		}
	}
}

// copyKeyValues copies the key-value entries but the Arrow schema's.
func copyKeyValues(r *countingByteReader, meta, out []byte) ([]byte, error) {
	count, err := readStructList(r, "key-value metadata")
	if err != nil {
		return nil, err
	}
	var kept []byte
	n := int64(0)
	for range count {
		start := r.n
		var key []byte
		err := readStruct(r, 1, func(id int16, typ byte) (bool, error) {
			if id != 1 || typ != tBinary {
				return false, nil
			}
			var err error
			key, err = readBinary(r, int64(len(arrowSchemaKey)))
			return true, err
		})
		if err != nil {
			return nil, err
		}
		if string(key) != arrowSchemaKey {
			kept = append(kept, meta[start:r.n]...)
			n++
		}
	}
	out = appendListHeader(out, n, tStruct)
	return append(out, kept...), nil
}

// varintLen is the length of the varint b starts with.
func varintLen(b []byte) int {
	for i, c := range b {
		if c&0x80 == 0 {
			return i + 1
		}
	}
	return len(b)
}

// readBinary reads a thrift binary, keeping at most keep of its bytes.
func readBinary(r *countingByteReader, keep int64) ([]byte, error) {
	v, err := readVarint(r)
	if err != nil {
		return nil, err
	}
	n := int64(v)
	if n < 0 || n > r.limit-r.n {
		return nil, fmt.Errorf("a string of %d bytes runs past the end", v)
	}
	var b []byte
	for i := int64(0); i < n; i++ {
		c, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		if i < keep {
			b = append(b, c)
		}
	}
	return b, nil
}

func readFieldHeader(r *countingByteReader, last *int16) (int16, byte, error) {
	b, err := r.ReadByte()
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == errHeaderTooLong {
			return 0, 0, errors.New("truncated footer")
		}
		return 0, 0, err
	}
	typ := b & 0x0f
	if typ == 0 {
		return 0, 0, nil
	}
	id := *last + int16(b>>4)
	if b>>4 == 0 {
		v, err := readVarint(r)
		if err != nil {
			return 0, 0, err
		}
		id = int16(zigzag(v))
	}
	*last = id
	return id, typ, nil
}

func appendFieldHeader(out []byte, last *int16, id int16, typ byte) []byte {
	if d := id - *last; d > 0 && d <= 15 {
		out = append(out, byte(d)<<4|typ)
	} else {
		out = append(out, typ)
		out = binary.AppendUvarint(out, uint64((int64(id)<<1)^(int64(id)>>63)))
	}
	*last = id
	return out
}
