package standardize

// ValueCount is one distinct value of a column and the number of rows that
// hold it.
type ValueCount struct {
	Value string
	Count int64
}

// The methods that link a variant to its canonical value (Mapping.Method).
const (
	MethodFingerprint      = "fingerprint"
	MethodNGramFingerprint = "ngram-fingerprint"
	MethodNearestNeighbour = "nearest-neighbour"
)

// Mapping proposes rewriting every row holding Variant to Canonical.
type Mapping struct {
	Variant        string
	Canonical      string
	VariantCount   int64
	CanonicalCount int64
	// Method is how the two values relate directly: the same fingerprint,
	// else the same n-gram fingerprint, else a nearest neighbour (possibly
	// through another variant of the same canonical value).
	Method string
	// Distance is the edit distance once formatting is ignored: 0 for the
	// same fingerprint (see the package doc, Confidence).
	Distance int
	// Confidence is in (0,1); the formula is in the package doc.
	Confidence float64
}

// The defaults of Options.
const (
	DefaultMinRatio  = 3.0
	DefaultNGramSize = 2
	DefaultMaxBlock  = 256
)

// The nearest-neighbour radius by fingerprint length, in runes (see the
// package doc): none below ShortLen, 1 from ShortLen, 2 from LongLen.
const (
	ShortLen = 5
	LongLen  = 8
)

// Options tune Cluster. The zero value means the defaults.
type Options struct {
	// MinRatio is R: a variant's canonical value must be at least R times
	// as frequent. Values below 1 mean DefaultMinRatio.
	MinRatio float64
	// NGramSize is n of the n-gram fingerprint; 0 means DefaultNGramSize.
	NGramSize int
	// MaxBlock caps a nearest-neighbour block: a block with more
	// fingerprints is not used to find candidates (the package doc,
	// Performance); 0 means DefaultMaxBlock.
	MaxBlock int
	// SkipNGram and SkipNeighbour turn a method off (the fingerprint key
	// collision is always on).
	SkipNGram     bool
	SkipNeighbour bool

	// bruteForce replaces the blocking by an all-pairs comparison (tests).
	bruteForce bool
}

func (o Options) withDefaults() Options {
	if !(o.MinRatio >= 1) {
		o.MinRatio = DefaultMinRatio
	}
	if o.NGramSize <= 0 {
		o.NGramSize = DefaultNGramSize
	}
	if o.MaxBlock <= 0 {
		o.MaxBlock = DefaultMaxBlock
	}
	return o
}

// Stats describe a Cluster run.
type Stats struct {
	Values        int   // input values with a letter or digit and a positive count
	Fingerprints  int   // distinct (fingerprint, digit sequence) keys
	Comparisons   int64 // bounded edit distances computed between candidates
	Neighbours    int   // nearest-neighbour pairs within the radius
	SkippedBlocks int   // blocks larger than MaxBlock, not used
	Clusters      int   // clusters of more than one value
	Mappings      int
}
