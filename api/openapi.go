package api

import (
	_ "embed"
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"
	"sigs.k8s.io/yaml"
)

// openAPIYAML is the API reference, written by hand next to the code; a
// test fails when it and the route table disagree.
//
//go:embed openapi.yaml
var openAPIYAML []byte

var openAPIJSON = sync.OnceValues(func() ([]byte, error) { return yaml.YAMLToJSON(openAPIYAML) })

// OpenAPIJSON returns the OpenAPI 3.1 document as JSON.
func OpenAPIJSON() ([]byte, error) { return openAPIJSON() }

// openAPI serves the document as it is (it is not an enveloped resource).
func (s *Server) openAPI(c *gin.Context) error {
	doc, err := openAPIJSON()
	if err != nil {
		return err
	}
	c.Data(http.StatusOK, "application/json", doc)
	return nil
}
