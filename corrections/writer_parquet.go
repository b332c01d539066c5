package corrections

import (
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dqs/dqs/records"
)

// parquetWriter writes every column as nullable strings, the values the
// readers read. It builds a row group in Arrow builders and writes it when
// it holds RowGroupRows rows or RowGroupBytes bytes of values: memory is
// one row group's values (and their encoding, page by page), whatever the
// file's size.
type parquetWriter struct {
	w     io.Writer
	opt   WriterOptions
	fw    *pqarrow.FileWriter
	b     *array.RecordBuilder
	cols  []*array.StringBuilder
	rows  int
	bytes int64
}

func newParquetWriter(w io.Writer, opt WriterOptions) *parquetWriter {
	return &parquetWriter{w: w, opt: opt}
}

func (p *parquetWriter) WriteHeader(cols []string) error {
	if len(cols) == 0 {
		return errors.New("parquet: a file needs at least one column")
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(int64(p.opt.RowGroupRows)),
	)
	// Hidden behind a struct, p.w is no io.Closer, which the Parquet writer
	// would close: closing the destination is the caller's business.
	fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{p.w}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	p.fw = fw
	p.b = array.NewRecordBuilder(memory.DefaultAllocator, schema)
	p.cols = make([]*array.StringBuilder, len(cols))
	for i := range cols {
		p.cols[i] = p.b.Field(i).(*array.StringBuilder)
	}
	return nil
}

func (p *parquetWriter) Write(rec *records.Record) error {
	for i, v := range rec.Values {
		if i < len(rec.Null) && rec.Null[i] {
			p.cols[i].AppendNull()
			continue
		}
		p.cols[i].Append(v)
		p.bytes += int64(len(v))
	}
	p.rows++
	if p.rows >= p.opt.RowGroupRows || p.bytes >= p.opt.RowGroupBytes {
		return p.flush()
	}
	return nil
}

// flush writes the rows in the builders as a row group.
func (p *parquetWriter) flush() error {
	if p.rows == 0 {
		return nil
	}
	rec := p.b.NewRecordBatch()
	defer rec.Release()
	p.rows, p.bytes = 0, 0
	return p.fw.Write(rec)
}

func (p *parquetWriter) Close() error {
	if p.fw == nil {
		return errors.New("parquet: no header was written")
	}
	err := p.flush()
	p.b.Release()
	if cerr := p.fw.Close(); err == nil {
		err = cerr
	}
	return err
}
