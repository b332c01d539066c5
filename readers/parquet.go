package readers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/dqs/dqs/columnar"
)

// Parquet reading.
//
// Files are read with arrow-go's pqarrow one row group at a time, in
// record batches of up to 16384 rows (recordRows), in the calling goroutine
// (Parallel=false). Every call into the library runs behind recover(), so a
// library panic on a corrupt file becomes an ErrMalformed error. Before a
// row group is read its pages are walked here (parquet_pages.go) to verify
// checksums and sizes, and its column readers are created once in this
// goroutine, because pqarrow creates struct children in a helper goroutine
// where a panic could not be recovered.
//
// String columns stored dictionary-encoded throughout are read as Arrow
// dictionaries (dictionaryColumns), which spares the library copying every
// value. Next formats values one row at a time; NextBatch
// (parquet_batch.go) formats whole columns of a record batch into a
// columnar batch. Both format through appendArrowValue
// (parquet_format.go), so they give the same text. On flat files NextBatch
// decodes the pages itself and falls back to Arrow on anything else
// (parquet_direct.go).
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
	mem  *bufferPool // every buffer the library allocates

	cols []string
	rec  Record
	row  int64 // rows returned so far
	err  error

	rgBytes int64        // uncompressed bytes of the pages of the row group last prepared
	rgPages []chunkPages // what its column chunks' pages declare

	// Exactly one of these reads the rows.
	arrow *arrowRows
	plain *plainRows
	// NextBatch reads flat files through direct, until it hands over to
	// arrow (parquet_direct.go).
	direct *directRows
}

// guard runs fn, turning a panic into an ErrMalformed error.
func guard(what string, fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if ob, ok := p.(overBudget); ok {
				err = ob
				return
			}
			if _, ok := p.(valueOverLimit); ok {
				err = errValueOverLimit
				return
			}
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

	r := &parquetReader{f: f, size: size, opt: opt, mem: newBufferPool(opt.MemoryBudget)}
	md, err := readFooter(f, size, opt.footerLimit(), opt.chunkLimit())
	if err != nil {
		return nil, err
	}
	props := parquet.NewReaderProperties(r.mem)
	props.BufferedStreamEnabled = true // stream column chunks instead of loading them whole
	// Each column chunk gets a fresh buffer of this size (the library grows
	// it for a larger page header).
	props.BufferSize = int64(r.streamBuffer(md.Schema.NumColumns()))
	props.MaxUncompressedPageSize = opt.pageLimit()
	err = guard("parquet: reading the footer", func() error {
		var err error
		r.pf, err = file.NewParquetReader(f, file.WithReadProps(props), file.WithMetadata(md))
		return classify("parquet: reading the footer", err)
	})
	if err != nil {
		return nil, err
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
			r.direct = newDirectRows(r, ar.cols)
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

// streamBuffer is the size of the buffer through which each column chunk
// of a file of ncols leaf columns is read, on either path. 1 MiB buffers
// were 390 MB of garbage on the 3M-row benchmark file; 256 KiB takes 3%
// fewer cycles, and larger ones gain nothing more. But a row group's
// columns are read side by side, each with its buffer: a wide file's
// buffers shrink so that together they take at most a sixteenth of the
// budget (10,000 columns at 256 KiB would take 2.5 GiB).
func (r *parquetReader) streamBuffer(ncols int) int {
	return int(min(256<<10, max(4<<10, r.opt.MemoryBudget/16/int64(max(1, ncols)))))
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
	for c := 0; c < ncols; c++ {
		if err := checkDecimal(md.Schema.Column(c)); err != nil {
			return err
		}
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

// maxDecimalDigits bounds a decimal column's precision: Arrow's widest
// decimal holds 76 digits. The text of a decimal pads its scale with zeros,
// so a scale of 2^31-1, which the library takes on byte arrays, made one
// value 2 GB.
const maxDecimalDigits = 76

// checkDecimal refuses a decimal column of more digits than any decimal
// holds, or of a scale outside 0 to its precision.
func checkDecimal(d *schema.Column) error {
	precision, scale, ok := int32(0), int32(0), false
	switch lt := d.LogicalType().(type) {
	case schema.DecimalLogicalType:
		precision, scale, ok = lt.Precision(), lt.Scale(), true
	case *schema.DecimalLogicalType:
		precision, scale, ok = lt.Precision(), lt.Scale(), true
	}
	if pn, isPrimitive := d.SchemaNode().(*schema.PrimitiveNode); !ok && isPrimitive && pn.DecimalMetadata().IsSet {
		precision, scale, ok = pn.DecimalMetadata().Precision, pn.DecimalMetadata().Scale, true
	}
	if ok && (precision < 1 || precision > maxDecimalDigits || scale < 0 || scale > precision) {
		return unsupportedf("parquet: column %q is a decimal of precision %d and scale %d; at most %d digits, and a scale from 0 to the precision, are supported", d.Path(), precision, scale, maxDecimalDigits)
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

// prepareRowGroup checks the pages of row group rg, and that the memory
// they take at once fits in the budget (Options.pagesLimit), and opens each
// column's page reader once in this goroutine.
func (r *parquetReader) prepareRowGroup(rg int) error {
	md := r.pf.MetaData()
	rgm := md.RowGroup(rg)
	var held int64
	r.rgBytes = 0
	r.rgPages = r.rgPages[:0]
	for c := 0; c < md.Schema.NumColumns(); c++ {
		where := fmt.Sprintf("parquet: row group %d, column %q", rg+1, md.Schema.Column(c).Path())
		col, err := rgm.ColumnChunk(c)
		if err != nil {
			return classify(where, err)
		}
		pages, err := checkColumnChunk(r.f, r.size, col, md.Schema.Column(c), r.opt.pageLimit(), where)
		if err != nil {
			return err
		}
		held += pages.held()
		r.rgBytes += pages.uncompressed
		r.rgPages = append(r.rgPages, pages)
		if held > r.opt.pagesLimit() {
			return unsupportedf("parquet: row group %d holds pages that need more than %s in memory at once (%d columns read side by side), more than the %s a file's pages may take",
				rg+1, aboutBytes(held), md.Schema.NumColumns(), aboutBytes(r.opt.pagesLimit()))
		}
	}
	// One RowGroup for all columns: each call works out the page index
	// ranges of every column (quadratic, 800 MB on 10,000 columns).
	rgr := r.pf.RowGroup(rg)
	for c := 0; c < md.Schema.NumColumns(); c++ {
		where := fmt.Sprintf("parquet: row group %d, column %q", rg+1, md.Schema.Column(c).Path())
		pr, err := rgr.GetColumnPageReader(c)
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
	if r.direct != nil {
		r.leaveDirect()
	}
	err := r.step(func() error {
		if r.arrow != nil {
			return r.arrow.next(&r.rec)
		}
		return r.plain.next(&r.rec)
	})
	if err != nil {
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

// step runs fn, which reads from row r.row+1 on, behind guard. An error
// (io.EOF included) ends the reader: later calls return it again.
func (r *parquetReader) step(fn func() error) error {
	what := fmt.Sprintf("parquet: row %d", r.row+1)
	err := guard(what, fn)
	if err == nil {
		return nil
	}
	if errors.Is(err, errValueOverLimit) {
		err = unsupportedf("%s: a value is larger than the %s limit", what, humanBytes(r.opt.MaxFieldBytes))
	}
	if err != io.EOF {
		err = classify(what, err)
		if r.arrow != nil {
			r.arrow.release()
		}
	}
	r.err = err
	return err
}

// errValueOverLimit: formatting a value stopped at the field limit
// (valueOverLimit); step words it with the row.
var errValueOverLimit = newFileError(ErrUnsupported, "a value is larger than the field limit")

// arrowRows reads through pqarrow.
type arrowRows struct {
	p      *parquetReader
	fr     *pqarrow.FileReader
	cols   []arrowColumn
	names  []string
	paths  [][]int // per output column: field index, then struct child indices
	rg     int     // next row group
	skip   int64   // rows of row group rg to pass over (seek)
	rr     pqarrow.RecordReader
	batch  arrow.RecordBatch
	leaves []arrowLeaf // per output column, for the current batch
	bi     int         // next row within batch
	rgLeft int64       // rows still expected from the current row group
	text   []byte      // Next formats each value here before copying it out
	dicts  []formatted // per output column, its dictionary's text

	rowBytes int // text bytes per row in the last rows NextBatch converted
}

type arrowLeaf struct {
	parents  []arrow.Array // enclosing structs, outermost first
	arr      arrow.Array
	nullable bool          // whether null must ask arr and parents
	kind     columnar.Kind // how batches hold its values (typedKind)
	maxValue int           // MaxFieldBytes: where a nested value's text stops

	// A dictionary array no longer than the record has its dictionary
	// formatted once, and each row copies its value's text by index.
	dict     *array.Dictionary
	dictText *formatted
}

// null reports whether row i is null in the leaf or an enclosing struct.
func (l *arrowLeaf) null(i int) bool {
	if !l.nullable {
		return false
	}
	if l.arr.IsNull(i) {
		return true
	}
	for _, p := range l.parents {
		if p.IsNull(i) {
			return true
		}
	}
	return false
}

// appendValue appends the text of row i, which is not null.
func (l *arrowLeaf) appendValue(dst []byte, i int) []byte {
	if l.dictText != nil {
		return append(dst, l.dictText.value(l.dict.GetValueIndex(i))...)
	}
	dst, _ = appendArrowValue(dst, l.arr, i, l.maxValue)
	return dst
}

// formatted is the text of an array's values, back to back.
type formatted struct {
	text []byte
	ends []int // value k is text[ends[k-1]:ends[k]]
}

func (f *formatted) value(k int) []byte {
	start := 0
	if k > 0 {
		start = f.ends[k-1]
	}
	return f.text[start:f.ends[k]]
}

// format formats every value of arr, null or not, as appendArrowValue
// would for a row that points at it. It reports false if that panics (as
// a value no row points at may on a corrupt file): rows are then formatted
// one by one, so that only the values they use count.
func (f *formatted) format(arr arrow.Array, limit int) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	f.text, f.ends = f.text[:0], f.ends[:0]
	for k := 0; k < arr.Len(); k++ {
		f.text, _ = appendArrowValue(f.text, arr, k, limit)
		f.ends = append(f.ends, len(f.text))
	}
	return true
}

func newArrowRows(p *parquetReader) (*arrowRows, error) {
	ar := &arrowRows{p: p}
	err := guard("parquet: reading the schema", func() error {
		fr, cols, err := openArrow(p.pf, p.mem, nil)
		if err != nil {
			return err
		}
		if dfr, dcols := openArrowDictionaries(p.pf, p.mem, cols); dfr != nil {
			fr, cols = dfr, dcols
		}
		ar.fr = fr
		ar.cols = cols
		for _, c := range cols {
			ar.names = append(ar.names, c.name)
			ar.paths = append(ar.paths, c.path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ar, nil
}

// openArrow opens pf through pqarrow, reading the leaf columns in dict as
// dictionaries, and returns its output columns.
func openArrow(pf *file.Reader, mem memory.Allocator, dict []int) (*pqarrow.FileReader, []arrowColumn, error) {
	props := pqarrow.ArrowReadProperties{Parallel: false}
	for _, c := range dict {
		props.SetReadDict(c, true)
	}
	fr, err := pqarrow.NewFileReader(pf, props, mem)
	if err != nil {
		return nil, nil, err
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, nil, err
	}
	var cols []arrowColumn
	for i, f := range sc.Fields() {
		cols = flatten(cols, f.Name, f.Type, []int{i})
	}
	return fr, cols, nil
}

// arrowColumn is an output column of the Arrow path: a top-level field or,
// as structs are flattened, a field of nested structs.
type arrowColumn struct {
	name string
	path []int // field index, then struct child indices
	typ  arrow.DataType
}

func flatten(cols []arrowColumn, name string, t arrow.DataType, path []int) []arrowColumn {
	if st, ok := t.(*arrow.StructType); ok && st.NumFields() > 0 {
		for i, f := range st.Fields() {
			cols = flatten(cols, name+"."+f.Name, f.Type, append(append([]int(nil), path...), i))
		}
		return cols
	}
	return append(cols, arrowColumn{name: name, path: path, typ: t})
}

// Reading a string column as a dictionary saves copying every value into
// a string array when the file stores it dictionary-encoded: the batch
// reader copies each value from the dictionary once instead of twice. The
// text is the same, as a dictionary's values format as the values do.

// openArrowDictionaries opens pf through pqarrow as openArrow does, but
// reading the columns dictionaryColumns picks as dictionaries. It returns
// nil if there are none or the library fails, or reads other than exactly
// those columns as dictionaries of their type.
func openArrowDictionaries(pf *file.Reader, mem memory.Allocator, cols []arrowColumn) (fr *pqarrow.FileReader, dcols []arrowColumn) {
	guard("", func() error { // a failure only means reading without dictionaries
		dict := dictionaryColumns(pf.MetaData())
		if len(dict) == 0 {
			return nil
		}
		dfr, dc, err := openArrow(pf, mem, dict)
		if err == nil && sameButDictionaries(cols, dc, len(dict)) {
			fr, dcols = dfr, dc
		}
		return nil
	})
	return fr, dcols
}

// dictionaryColumns returns the leaf columns worth reading as
// dictionaries: strings and binaries outside lists whose data pages are
// all dictionary-encoded in every row group, as the metadata tells. (Were
// it wrong, the library would build the dictionary itself: slower, but
// the same values.)
func dictionaryColumns(md *metadata.FileMetaData) []int {
	var cols []int
	for c := 0; c < md.Schema.NumColumns(); c++ {
		d := md.Schema.Column(c)
		if d.PhysicalType() != parquet.Types.ByteArray || d.MaxRepetitionLevel() != 0 {
			continue
		}
		switch d.LogicalType().(type) {
		case schema.StringLogicalType, *schema.StringLogicalType, schema.NoLogicalType, *schema.NoLogicalType:
			if dictionaryEncoded(md, c) {
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// dictionaryEncoded reports whether every data page of column c is
// dictionary-encoded, by the page encoding statistics (which older writers
// leave out).
func dictionaryEncoded(md *metadata.FileMetaData, c int) bool {
	if md.NumRowGroups() == 0 {
		return false
	}
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		cc, err := md.RowGroup(rg).ColumnChunk(c)
		if err != nil {
			return false
		}
		stats := cc.EncodingStats()
		if len(stats) == 0 {
			return false
		}
		for _, st := range stats {
			dict := st.Encoding == parquet.Encodings.RLEDict || st.Encoding == parquet.Encodings.PlainDict
			if !dict && st.PageType.String() != "DICTIONARY_PAGE" {
				return false
			}
		}
	}
	return true
}

// sameButDictionaries reports whether dcols are cols with n string or
// binary columns read as dictionaries of those types.
func sameButDictionaries(cols, dcols []arrowColumn, n int) bool {
	if len(cols) != len(dcols) {
		return false
	}
	for i, c := range cols {
		if c.name != dcols[i].name || !slices.Equal(c.path, dcols[i].path) {
			return false
		}
		if arrow.TypeEqual(c.typ, dcols[i].typ) {
			continue
		}
		dt, ok := dcols[i].typ.(*arrow.DictionaryType)
		id := c.typ.ID()
		if !ok || (id != arrow.STRING && id != arrow.BINARY) || !arrow.TypeEqual(dt.ValueType, c.typ) {
			return false
		}
		n--
	}
	return n == 0
}

// seek makes the next row read row skip (from 0) of row group rg, which
// has more rows than that.
func (ar *arrowRows) seek(rg int, skip int64) {
	ar.release()
	ar.rg, ar.skip = rg, skip
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
			ar.fr.Props.BatchSize = ar.recordRows(rg)
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
			if ar.skip >= b.NumRows() {
				ar.skip -= b.NumRows()
				continue
			}
			b.Retain()
			ar.batch = b
			ar.bi = int(ar.skip)
			ar.skip = 0
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

// Bounds of a record batch read from pqarrow. Each record batch costs a
// fixed overhead per column, so records are large; but a record holds all
// its values in memory, so it is bounded in cells (like a columnar batch)
// and in bytes, as far as the row group's metadata tells its size. On a
// narrow table of 3M rows, 16384 rows cost as little CPU as 32768 with
// 30 MB less peak memory; 8192 rows cost about a tenth more.
const (
	maxRecordRows  = 16 << 10
	maxRecordBytes = 4 << 20
)

// recordRows is the number of rows per record batch for row group rg.
func (ar *arrowRows) recordRows(rg int) int64 {
	leaves := int64(ar.p.pf.MetaData().Schema.NumColumns())
	rows := min(maxRecordRows, columnar.MaxCells/max(1, leaves))
	// By the size of the row group's pages, which were checked (the
	// metadata's TotalByteSize is a claim of the writer's).
	if size, n := ar.p.rgBytes, ar.p.pf.MetaData().RowGroup(rg).NumRows(); size > 0 && n > 0 {
		rows = min(rows, maxRecordBytes/max(1, size/n))
	}
	return max(1, rows)
}

func (ar *arrowRows) bindLeaves() {
	ar.leaves = ar.leaves[:0]
	if len(ar.dicts) < len(ar.paths) {
		ar.dicts = make([]formatted, len(ar.paths))
	}
	n := int(ar.batch.NumRows())
	for c, path := range ar.paths {
		arr := ar.batch.Column(path[0])
		var parents []arrow.Array
		nullable := false
		for _, k := range path[1:] {
			st := arr.(*array.Struct)
			parents = append(parents, st)
			nullable = nullable || st.NullN() > 0
			arr = st.Field(k)
		}
		if arr.Len() < n {
			panic(fmt.Sprintf("column has %d values for %d rows", arr.Len(), n))
		}
		// NullN() == 0 means no nulls where nulls live in the validity
		// bitmap; an extension array may decide otherwise (a variant is
		// null where its value is), so it is always asked.
		_, ext := arr.(array.ExtensionArray)
		nullable = nullable || ext || arr.NullN() > 0
		leaf := arrowLeaf{parents: parents, arr: arr, nullable: nullable, kind: typedKind(arr.DataType(), ar.p.opt.MaxFieldBytes), maxValue: ar.p.opt.MaxFieldBytes}
		if d, ok := arr.(*array.Dictionary); ok && d.Dictionary().Len() <= n && ar.dicts[c].format(d.Dictionary(), ar.p.opt.MaxFieldBytes) {
			leaf.dict, leaf.dictText = d, &ar.dicts[c]
		}
		ar.leaves = append(ar.leaves, leaf)
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
	for c := range ar.leaves {
		l := &ar.leaves[c]
		if l.null(i) {
			rec.Values[c], rec.Null[c] = "", true
			continue
		}
		ar.text = l.appendValue(ar.text[:0], i)
		rec.Values[c], rec.Null[c] = string(ar.text), false
	}
	return nil
}
