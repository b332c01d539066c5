package readers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Codec adjustments, registered once for the process:
//
//   - No decompressor writes more than the page declares: the output is
//     bounded by len(dst), which every caller sizes to the page header's
//     uncompressed size (itself bounded before the call). zstd and snappy
//     would otherwise size their output by a length in the compressed
//     stream's own header: a 123-byte file claiming 16 GiB there had the
//     process allocate 16 GiB (ZstdLyingFrame, SnappyLyingLength in
//     internal/hostile). gzip, brotli and LZ4 already stop at len(dst).
//   - Every decompressor accepts an empty input as an empty page. Writers
//     may store zero bytes for a DataPageV2 whose values are all null
//     without running the codec (datapage_v2_empty_datapage.snappy.parquet);
//     the spec says such bytes must not be decompressed.
//   - The deprecated LZ4 codec (id 5), which arrow-go leaves unimplemented,
//     is decoded like Arrow C++ does: Hadoop's framed LZ4 first, falling
//     back to a plain LZ4 block.
//
// Compression is untouched.
func init() {
	for _, c := range []compress.Compression{
		compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Brotli,
		compress.Codecs.Zstd, compress.Codecs.Lz4Raw,
	} {
		codec, err := compress.GetCodec(c)
		if err != nil {
			continue
		}
		bc := boundedCodec{Codec: codec, decode: decodeBy(c, codec)}
		if sc, ok := codec.(compress.StreamingCodec); ok {
			compress.RegisterCodec(c, boundedStreamingCodec{bc, sc})
		} else {
			compress.RegisterCodec(c, bc)
		}
	}
	if _, err := compress.GetCodec(compress.Codecs.Lz4); err != nil {
		compress.RegisterCodec(compress.Codecs.Lz4, legacyLZ4Codec{})
	}
}

// boundedCodec decodes with decode, which writes at most len(dst) bytes.
type boundedCodec struct {
	compress.Codec
	decode func(dst, src []byte) ([]byte, error)
}

func (c boundedCodec) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

func (c boundedCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	if len(src) == 0 {
		return dst[:0], nil
	}
	return c.decode(dst, src)
}

// errLargerThanDeclared: a compressed stream claims more bytes than its page.
var errLargerThanDeclared = errors.New("the compressed data holds more than its page declares")

// decodeBy returns codec's decoding, bounded by len(dst).
func decodeBy(c compress.Compression, codec compress.Codec) func(dst, src []byte) ([]byte, error) {
	switch c {
	case compress.Codecs.Zstd:
		return func(dst, src []byte) ([]byte, error) {
			// The capacity limit makes the decoder refuse a frame whose
			// content size passes it before allocating anything.
			out, err := boundedZstd().DecodeAll(src, dst[:0:len(dst)])
			if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
				err = errLargerThanDeclared
			}
			return out, err
		}
	case compress.Codecs.Snappy:
		return func(dst, src []byte) ([]byte, error) {
			if n, err := snappy.DecodedLen(src); err != nil || n > len(dst) {
				return nil, errLargerThanDeclared
			}
			return compress.Decode(codec, dst, src)
		}
	}
	return func(dst, src []byte) ([]byte, error) { return compress.Decode(codec, dst, src) }
}

// boundedZstd is the process's zstd decoder for pages: DecodeAll is safe for
// concurrent use, and writes no more than the capacity of its destination.
var boundedZstd = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderMaxMemory(uint64(maxUncompressedPage)))
	if err != nil {
		panic(err) // only on invalid options
	}
	return d
})

type boundedStreamingCodec struct {
	boundedCodec
	stream compress.StreamingCodec
}

func (c boundedStreamingCodec) NewReader(r io.Reader) io.ReadCloser { return c.stream.NewReader(r) }
func (c boundedStreamingCodec) NewWriter(w io.Writer) io.WriteCloser {
	return c.stream.NewWriter(w)
}
func (c boundedStreamingCodec) NewWriterLevel(w io.Writer, l int) (io.WriteCloser, error) {
	return c.stream.NewWriterLevel(w, l)
}

// legacyLZ4Codec reads Parquet's deprecated LZ4 codec. It never writes.
type legacyLZ4Codec struct{}

var errLZ4Write = errors.New("parquet: writing the deprecated LZ4 codec is not supported; use LZ4_RAW")

func (legacyLZ4Codec) Encode(dst, src []byte) []byte { panic(errLZ4Write) }
func (legacyLZ4Codec) EncodeLevel(dst, src []byte, _ int) []byte {
	panic(errLZ4Write)
}
func (legacyLZ4Codec) CompressBound(n int64) int64 { return int64(lz4.CompressBlockBound(int(n))) + 8 }

func (c legacyLZ4Codec) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

func (legacyLZ4Codec) DecodeWithError(dst, src []byte) ([]byte, error) {
	if len(src) == 0 {
		return dst[:0], nil
	}
	if out, ok := decodeHadoopLZ4(dst, src); ok {
		return out, nil
	}
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return nil, fmt.Errorf("lz4: %w", err)
	}
	return dst[:n], nil
}

// decodeHadoopLZ4 decodes Hadoop's framing: repeated blocks of a big-endian
// uint32 decompressed size, a big-endian uint32 compressed size, and an LZ4
// block. It reports false when src does not follow that framing.
func decodeHadoopLZ4(dst, src []byte) ([]byte, bool) {
	total := 0
	for len(src) > 0 {
		if len(src) < 8 {
			return nil, false
		}
		usize := int(binary.BigEndian.Uint32(src[0:4]))
		csize := int(binary.BigEndian.Uint32(src[4:8]))
		src = src[8:]
		if csize > len(src) || usize > len(dst)-total || usize < 0 || csize < 0 {
			return nil, false
		}
		n, err := lz4.UncompressBlock(src[:csize], dst[total:total+usize])
		if err != nil || n != usize {
			return nil, false
		}
		total += n
		src = src[csize:]
	}
	return dst[:total], true
}
