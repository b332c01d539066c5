package readers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Parquet reading.
//
// Files are read with arrow-go's pqarrow one row group at a time, in
// batches of at most a few thousand rows, in the calling goroutine
// (Parallel=false). Every call into the library runs behind recover(), so a
// library panic on a corrupt file becomes an ErrMalformed error. Before a
// row group is read its pages are walked here (parquet_pages.go) to verify
// checksums and sizes, and its column readers are created once in this
// goroutine, because pqarrow creates struct children in a helper goroutine
// where a panic could not be recovered.
//
// Schemas pqarrow cannot convert (for example an unknown logical type or a
// MAP with optional keys) and INT96 timestamps (which pqarrow rejects
// outside the nanosecond range) use a plain column reader instead
// (parquet_lowlevel.go).

// maxUncompressedPage bounds a single page in memory.
const maxUncompressedPage = parquet.DefaultMaxUncompressedPageSize

type parquetReader struct {
	f    File
	size int64
	opt  Options
	pf   *file.Reader

	cols []string
	rec  Record
	row  int64 // rows returned so far
	err  error

	// Exactly one of these reads the rows.
	arrow *arrowRows
	plain *plainRows
}

// guard runs fn, turning a panic into an ErrMalformed error.
func guard(what string, fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = malformedf("%s: the Parquet decoder failed on corrupt data (%v)", what, p)
		}
	}()
	return fn()
}

// classify wraps a library error with the sentinel that fits it.
func classify(what string, err error) error {
	if err == nil || err == io.EOF || errors.Is(err, ErrMalformed) || errors.Is(err, ErrUnsupported) {
		return err
	}
	msg := err.Error()
	kind := ErrMalformed
	if errors.Is(err, arrow.ErrNotImplemented) || strings.Contains(msg, "unimplemented") ||
		strings.Contains(msg, "not supported") || strings.Contains(msg, "exceeds configured limit") {
		kind = ErrUnsupported
	}
	for strings.HasPrefix(msg, "parquet: ") {
		msg = strings.TrimPrefix(msg, "parquet: ")
	}
	return &fileError{kind: kind, msg: what + ": " + msg, cause: err}
}

func openParquet(f File, opt Options) (Reader, error) {
	return openParquetWith(f, opt, false)
}

// openParquetWith can force the plain column reader (tests compare both).
func openParquetWith(f File, opt Options, forcePlain bool) (Reader, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("reading file size: %w", err)
	}
	if size < 12 {
		return nil, malformedf("parquet: the file is %d bytes, too small to be Parquet", size)
	}
	var head, tail [4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("reading file: %w", err)
	}
	if _, err := f.ReadAt(tail[:], size-4); err != nil {
		return nil, fmt.Errorf("reading file: %w", err)
	}
	if string(tail[:]) == "PARE" {
		return nil, unsupportedf("parquet: encrypted Parquet files are not supported")
	}
	if string(head[:]) != "PAR1" || string(tail[:]) != "PAR1" {
		return nil, malformedf("parquet: missing the PAR1 magic bytes; the file is truncated or not Parquet")
	}

	r := &parquetReader{f: f, size: size, opt: opt}
	props := parquet.NewReaderProperties(memory.DefaultAllocator)
	props.BufferedStreamEnabled = true // stream column chunks instead of loading them whole
	props.BufferSize = 1 << 20
	props.MaxUncompressedPageSize = maxUncompressedPage
	err = guard("parquet: reading the footer", func() error {
		var err error
		r.pf, err = file.NewParquetReader(f, file.WithReadProps(props))
		return classify("parquet: reading the footer", err)
	})
	if err != nil {
		// A footer naming a logical type arrow-go does not know fails to
		// parse; read such columns by their physical type instead.
		var ok bool
		perr := guard("parquet: reading the footer", func() error {
			pf, patched, err := openWithPatchedFooter(f, size, props)
			ok = patched
			r.pf = pf
			return classify("parquet: reading the footer", err)
		})
		if !ok || perr != nil {
			return nil, err
		}
	}
	if err := guard("parquet: checking the metadata", r.checkMetadata); err != nil {
		return nil, err
	}

	usePlain := forcePlain || r.hasInt96()
	if !usePlain {
		ar, err := newArrowRows(r)
		if err == nil {
			r.arrow = ar
			r.cols = ar.names
		} else {
			usePlain = true
		}
	}
	if usePlain {
		pr, err := newPlainRows(r)
		if err != nil {
			return nil, err
		}
		r.plain = pr
		r.cols = pr.names
	}
	if len(r.cols) > opt.MaxColumns {
		return nil, unsupportedf("parquet: the file has %d columns, more than the limit of %d", len(r.cols), opt.MaxColumns)
	}
	r.cols = uniqueNames(r.cols)
	r.rec.Values = make([]string, len(r.cols))
	r.rec.Null = make([]bool, len(r.cols))
	return r, nil
}

func (r *parquetReader) checkMetadata() error {
	md := r.pf.MetaData()
	ncols := md.Schema.NumColumns()
	if ncols == 0 {
		return nil
	}
	if ncols > r.opt.MaxColumns {
		return unsupportedf("parquet: the file has %d columns, more than the limit of %d", ncols, r.opt.MaxColumns)
	}
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		rgm := md.RowGroup(rg)
		if rgm.NumRows() < 0 {
			return malformedf("parquet: row group %d has a negative row count", rg+1)
		}
		if rgm.NumColumns() != ncols {
			return malformedf("parquet: row group %d has %d column chunks but the schema has %d columns", rg+1, rgm.NumColumns(), ncols)
		}
		for c := 0; c < ncols; c++ {
			col, err := rgm.ColumnChunk(c)
			if err != nil {
				return classify(fmt.Sprintf("parquet: row group %d, column %d", rg+1, c+1), err)
			}
			if _, err := compress.GetCodec(col.Compression()); err != nil {
				return unsupportedf("parquet: column %q uses the %s codec, which is not supported", md.Schema.Column(c).Path(), col.Compression())
			}
		}
	}
	return nil
}

func (r *parquetReader) hasInt96() bool {
	sc := r.pf.MetaData().Schema
	for c := 0; c < sc.NumColumns(); c++ {
		if sc.Column(c).PhysicalType() == parquet.Types.Int96 {
			return true
		}
	}
	return false
}

// prepareRowGroup checks the pages of row group rg and opens each column's
// page reader once in this goroutine.
func (r *parquetReader) prepareRowGroup(rg int) error {
	md := r.pf.MetaData()
	rgm := md.RowGroup(rg)
	for c := 0; c < md.Schema.NumColumns(); c++ {
		where := fmt.Sprintf("parquet: row group %d, column %q", rg+1, md.Schema.Column(c).Path())
		col, err := rgm.ColumnChunk(c)
		if err != nil {
			return classify(where, err)
		}
		if err := checkColumnChunk(r.f, r.size, col, md.Schema.Column(c), maxUncompressedPage, where); err != nil {
			return err
		}
		pr, err := r.pf.RowGroup(rg).GetColumnPageReader(c)
		if err != nil {
			return classify(where, err)
		}
		pr.Close()
	}
	return nil
}

func (r *parquetReader) Columns() []string { return r.cols }
func (r *parquetReader) Format() Format    { return FormatParquet }

func (r *parquetReader) Close() error {
	if r.arrow != nil {
		r.arrow.release()
	}
	return nil
}

func (r *parquetReader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	what := fmt.Sprintf("parquet: row %d", r.row+1)
	err := guard(what, func() error {
		if r.arrow != nil {
			return r.arrow.next(&r.rec)
		}
		return r.plain.next(&r.rec)
	})
	if err != nil {
		if err != io.EOF {
			err = classify(what, err)
			if r.arrow != nil {
				r.arrow.release()
			}
		}
		r.err = err
		return nil, err
	}
	for i, v := range r.rec.Values {
		if len(v) > r.opt.MaxFieldBytes {
			r.err = unsupportedf("parquet: row %d, column %q: the value is larger than the %s limit", r.row+1, r.cols[i], humanBytes(r.opt.MaxFieldBytes))
			return nil, r.err
		}
	}
	r.row++
	return &r.rec, nil
}

// arrowRows reads through pqarrow.
type arrowRows struct {
	p      *parquetReader
	fr     *pqarrow.FileReader
	names  []string
	paths  [][]int // per output column: field index, then struct child indices
	rg     int     // next row group
	rr     pqarrow.RecordReader
	batch  arrow.RecordBatch
	leaves []arrowLeaf // per output column, for the current batch
	bi     int         // next row within batch
	rgLeft int64       // rows still expected from the current row group
}

type arrowLeaf struct {
	parents []arrow.Array // enclosing structs, outermost first
	arr     arrow.Array
}

func newArrowRows(p *parquetReader) (*arrowRows, error) {
	ar := &arrowRows{p: p}
	err := guard("parquet: reading the schema", func() error {
		leaves := p.pf.MetaData().Schema.NumColumns()
		batch := int64(4096)
		if leaves > 64 {
			batch = max(128, int64(262144/leaves))
		}
		fr, err := pqarrow.NewFileReader(p.pf, pqarrow.ArrowReadProperties{Parallel: false, BatchSize: batch}, memory.DefaultAllocator)
		if err != nil {
			return err
		}
		sc, err := fr.Schema()
		if err != nil {
			return err
		}
		ar.fr = fr
		for i, f := range sc.Fields() {
			ar.flatten(f.Name, f.Type, []int{i})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ar, nil
}

func (ar *arrowRows) flatten(name string, t arrow.DataType, path []int) {
	if st, ok := t.(*arrow.StructType); ok && st.NumFields() > 0 {
		for i, f := range st.Fields() {
			ar.flatten(name+"."+f.Name, f.Type, append(append([]int(nil), path...), i))
		}
		return
	}
	ar.names = append(ar.names, name)
	ar.paths = append(ar.paths, path)
}

func (ar *arrowRows) release() {
	if ar.batch != nil {
		ar.batch.Release()
		ar.batch = nil
	}
	if ar.rr != nil {
		ar.rr.Release()
		ar.rr = nil
	}
}

// nextBatch advances to the next non-empty batch, opening row groups as
// needed; it returns io.EOF after the last one.
func (ar *arrowRows) nextBatch() error {
	if ar.batch != nil {
		ar.batch.Release()
		ar.batch = nil
	}
	md := ar.p.pf.MetaData()
	for {
		if ar.rr == nil {
			if ar.rg >= md.NumRowGroups() {
				return io.EOF
			}
			rg := ar.rg
			ar.rg++
			ar.rgLeft = md.RowGroup(rg).NumRows()
			if ar.rgLeft == 0 || len(ar.names) == 0 {
				continue
			}
			if err := ar.p.prepareRowGroup(rg); err != nil {
				return err
			}
			rr, err := ar.fr.GetRecordReader(context.Background(), nil, []int{rg})
			if err != nil {
				return classify(fmt.Sprintf("parquet: row group %d", rg+1), err)
			}
			ar.rr = rr
		}
		if ar.rr.Next() {
			b := ar.rr.RecordBatch()
			if b.NumRows() == 0 {
				continue
			}
			if b.NumRows() > ar.rgLeft {
				return malformedf("parquet: row group %d holds more rows than its metadata declares", ar.rg)
			}
			ar.rgLeft -= b.NumRows()
			b.Retain()
			ar.batch = b
			ar.bi = 0
			ar.bindLeaves()
			return nil
		}
		err := ar.rr.Err()
		ar.rr.Release()
		ar.rr = nil
		if err != nil {
			return classify(fmt.Sprintf("parquet: row group %d", ar.rg), err)
		}
		if ar.rgLeft != 0 {
			return malformedf("parquet: row group %d ended %d rows short of the %d its metadata declares", ar.rg, ar.rgLeft, md.RowGroup(ar.rg-1).NumRows())
		}
	}
}

func (ar *arrowRows) bindLeaves() {
	ar.leaves = ar.leaves[:0]
	n := int(ar.batch.NumRows())
	for _, path := range ar.paths {
		arr := ar.batch.Column(path[0])
		var parents []arrow.Array
		for _, k := range path[1:] {
			st := arr.(*array.Struct)
			parents = append(parents, st)
			arr = st.Field(k)
		}
		if arr.Len() < n {
			panic(fmt.Sprintf("column has %d values for %d rows", arr.Len(), n))
		}
		ar.leaves = append(ar.leaves, arrowLeaf{parents: parents, arr: arr})
	}
}

func (ar *arrowRows) next(rec *Record) error {
	if ar.batch == nil || ar.bi >= int(ar.batch.NumRows()) {
		if err := ar.nextBatch(); err != nil {
			return err
		}
	}
	i := ar.bi
	ar.bi++
	for c, l := range ar.leaves {
		null := l.arr.IsNull(i)
		for _, p := range l.parents {
			if p.IsNull(i) {
				null = true
				break
			}
		}
		if null {
			rec.Values[c], rec.Null[c] = "", true
			continue
		}
		rec.Values[c], _ = arrowValue(l.arr, i)
		rec.Null[c] = false
	}
	return nil
}
