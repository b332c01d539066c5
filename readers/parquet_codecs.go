package readers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/pierrec/lz4/v4"
)

// Codec adjustments, registered once for the process:
//
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
		if sc, ok := codec.(compress.StreamingCodec); ok {
			compress.RegisterCodec(c, emptySafeStreamingCodec{emptySafeCodec{codec}, sc})
		} else {
			compress.RegisterCodec(c, emptySafeCodec{codec})
		}
	}
	if _, err := compress.GetCodec(compress.Codecs.Lz4); err != nil {
		compress.RegisterCodec(compress.Codecs.Lz4, legacyLZ4Codec{})
	}
}

type emptySafeCodec struct{ compress.Codec }

func (c emptySafeCodec) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

func (c emptySafeCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	if len(src) == 0 {
		return dst[:0], nil
	}
	return compress.Decode(c.Codec, dst, src)
}

type emptySafeStreamingCodec struct {
	emptySafeCodec
	stream compress.StreamingCodec
}

func (c emptySafeStreamingCodec) NewReader(r io.Reader) io.ReadCloser { return c.stream.NewReader(r) }
func (c emptySafeStreamingCodec) NewWriter(w io.Writer) io.WriteCloser {
	return c.stream.NewWriter(w)
}
func (c emptySafeStreamingCodec) NewWriterLevel(w io.Writer, l int) (io.WriteCloser, error) {
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
