package hostile

import (
	"encoding/base64"
	"encoding/binary"

	flatbuffers "github.com/google/flatbuffers/go"
)

// ArrowSchemaChildren is a one-column Parquet file whose key-value metadata
// carries an Arrow schema (the "ARROW:schema" entry Arrow writers add) with
// one struct field whose children vector claims children entries while
// holding one: a reader that sizes the field list by the claim asks for
// children × the size of a field.
func ArrowSchemaChildren(children uint32) []byte {
	f := ParquetFile{
		Columns: []Column{{Name: "id", Type: TypeInt64, Pages: []Page{plainInt64Page(1)}}},
		Rows:    1,
	}
	f.KeyValues = [][2]string{{"ARROW:schema", base64.StdEncoding.EncodeToString(ArrowSchemaMessage(children))}}
	return f.Bytes()
}

// ArrowSchemaMessage is an encapsulated Arrow IPC message holding the
// schema {id: struct<a: int64>}, the struct's children vector length set
// to children (Schema.fbs and Message.fbs of the Arrow format).
func ArrowSchemaMessage(children uint32) []byte {
	b := flatbuffers.NewBuilder(256)
	const (
		typeInt      = 2
		typeStruct   = 13
		headerSchema = 1
	)
	// Int { bitWidth: 64, is_signed: true }
	b.StartObject(2)
	b.PrependInt32Slot(0, 64, 0)
	b.PrependBoolSlot(1, true, false)
	child := arrowField(b, "a", typeInt, b.EndObject(), 0)

	b.StartVector(4, 1, 4)
	b.PrependUOffsetT(child)
	kids := b.EndVector(1)
	b.StartObject(0)
	field := arrowField(b, "id", typeStruct, b.EndObject(), kids)

	b.StartVector(4, 1, 4)
	b.PrependUOffsetT(field)
	fields := b.EndVector(1)
	// Schema { endianness, fields }
	b.StartObject(4)
	b.PrependUOffsetTSlot(1, fields, 0)
	schema := b.EndObject()
	// Message { version: V5, header_type: Schema, header, bodyLength: 0 }
	b.StartObject(5)
	b.PrependInt16Slot(0, 4, 0)
	b.PrependByteSlot(1, headerSchema, 0)
	b.PrependUOffsetTSlot(2, schema, 0)
	msg := b.EndObject()
	b.Finish(msg)
	buf := b.FinishedBytes()
	// The vector's length is the uint32 at its offset, counted from the end.
	at := len(buf) - int(kids)
	binary.LittleEndian.PutUint32(buf[at:], children)

	for len(buf)%8 != 0 {
		buf = append(buf, 0)
	}
	out := binary.LittleEndian.AppendUint32(nil, 0xffffffff)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(buf)))
	out = append(out, buf...)
	return binary.LittleEndian.AppendUint32(append(out, 0xff, 0xff, 0xff, 0xff), 0) // end of stream
}

// arrowField builds a Field { name, nullable, type_type, type, children }
// (no children when kids is 0).
func arrowField(b *flatbuffers.Builder, name string, typeType byte, typ, kids flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	n := b.CreateString(name)
	b.StartObject(7)
	b.PrependUOffsetTSlot(0, n, 0)
	b.PrependBoolSlot(1, true, false)
	b.PrependByteSlot(2, typeType, 0)
	b.PrependUOffsetTSlot(3, typ, 0)
	if kids != 0 {
		b.PrependUOffsetTSlot(5, kids, 0)
	}
	return b.EndObject()
}
