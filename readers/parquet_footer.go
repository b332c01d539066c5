package readers

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// Footers written by newer writers may annotate a column with a logical
// type this library does not know; arrow-go then fails to build the schema.
// Like other readers, we fall back to reading such a column by its physical
// (and legacy converted) type: the unknown annotation is removed from a
// copy of the footer before it is parsed.

// knownLogicalTypes are the LogicalType union members of parquet.thrift
// that arrow-go understands.
var knownLogicalTypes = map[int16]bool{
	1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true,
	10: true, 11: true, 12: true, 13: true, 14: true, 15: true, 16: true, 17: true, 18: true,
}

// openWithPatchedFooter retries opening a file whose footer names unknown
// logical types. It reports ok=false when the footer has none.
func openWithPatchedFooter(f File, size int64, props *parquet.ReaderProperties) (pf *file.Reader, ok bool, err error) {
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, false, nil
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n <= 0 || n > size-12 || n > 256<<20 {
		return nil, false, nil
	}
	meta := make([]byte, n)
	if _, err := f.ReadAt(meta, size-8-n); err != nil {
		return nil, false, nil
	}
	patched, changed, err := dropUnknownLogicalTypes(meta)
	if err != nil || !changed {
		return nil, false, nil
	}
	md, err := metadata.NewFileMetaData(patched, nil)
	if err != nil {
		return nil, true, err
	}
	md.SetSourceFileSize(size)
	pf, err = file.NewParquetReader(f, file.WithReadProps(props), file.WithMetadata(md))
	return pf, true, err
}

// dropUnknownLogicalTypes rewrites a thrift-compact FileMetaData, removing
// SchemaElement.logicalType (field 10) where its union member is unknown.
func dropUnknownLogicalTypes(meta []byte) ([]byte, bool, error) {
	r := &countingByteReader{r: bufio.NewReader(bytes.NewReader(meta)), limit: int64(len(meta))}
	out := make([]byte, 0, len(meta))
	changed := false
	var last, lastOut int16
	for {
		id, typ, err := readFieldHeader(r, &last)
		if err != nil {
			return nil, false, err
		}
		if typ == 0 {
			out = append(out, 0)
			return out, changed, nil
		}
		if id == 2 && typ == tList { // schema: list<SchemaElement>
			out = appendFieldHeader(out, &lastOut, id, typ)
			start := r.n
			b, err := r.ReadByte()
			if err != nil {
				return nil, false, err
			}
			count := int64(b >> 4)
			if count == 15 {
				v, err := readVarint(r)
				if err != nil {
					return nil, false, err
				}
				count = int64(v)
			}
			if b&0x0f != tStruct || count < 0 || count > int64(len(meta)) {
				return nil, false, errors.New("unexpected schema list")
			}
			out = append(out, meta[start:r.n]...)
			for k := int64(0); k < count; k++ {
				var c bool
				if out, c, err = copySchemaElement(r, meta, out); err != nil {
					return nil, false, err
				}
				changed = changed || c
			}
			continue
		}
		start := r.n
		if err := skipValue(r, typ, 1, true); err != nil {
			return nil, false, err
		}
		out = appendFieldHeader(out, &lastOut, id, typ)
		out = append(out, meta[start:r.n]...)
	}
}

func copySchemaElement(r *countingByteReader, meta []byte, out []byte) ([]byte, bool, error) {
	changed := false
	var last, lastOut int16
	for {
		id, typ, err := readFieldHeader(r, &last)
		if err != nil {
			return nil, false, err
		}
		if typ == 0 {
			return append(out, 0), changed, nil
		}
		start := r.n
		drop := false
		if id == 10 && typ == tStruct {
			var inner int16
			member, mtyp, err := readFieldHeader(r, &inner)
			if err != nil {
				return nil, false, err
			}
			if mtyp != 0 {
				if err := skipValue(r, mtyp, 2, true); err != nil {
					return nil, false, err
				}
				if err := readStruct(r, 2, nil); err != nil {
					return nil, false, err
				}
			}
			drop = mtyp == 0 || !knownLogicalTypes[member]
		} else if err := skipValue(r, typ, 1, true); err != nil {
			return nil, false, err
		}
		if drop {
			changed = true
			continue
		}
		out = appendFieldHeader(out, &lastOut, id, typ)
		out = append(out, meta[start:r.n]...)
	}
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
