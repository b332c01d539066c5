package api_test

import (
	"testing"

	"github.com/dqs/dqs/internal/temporaltest"
)

// The integration tests of this package share one Temporal dev server.
func TestMain(m *testing.M) { temporaltest.Main(m) }
