package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/lineage"
)

// lineageGraph answers the organisation's lineage graph (scope read):
// without a node, the whole graph up to lineagesvc.MaxGraphNodes nodes
// (truncated and the totals say when it is cut); with node, its
// neighbourhood: direction upstream, downstream or both (default), depth
// 1 (default) to 50, with each frontier node's count of hidden neighbours,
// so a client expands a large graph step by step.
func (s *Server) lineageGraph(c *gin.Context) error {
	ctx, orgID := c.Request.Context(), mustPrincipal(c).OrgID
	node, ok := c.GetQuery("node")
	if !ok {
		for _, p := range []string{"direction", "depth"} {
			if _, given := c.GetQuery(p); given {
				return errs.BadRequest("%s applies to a neighbourhood: give node too", p)
			}
		}
		g, err := s.Lineage.Graph(ctx, orgID)
		if err != nil {
			return err
		}
		return respond(c, http.StatusOK, g)
	}
	dir, err := lineage.ParseDirection(c.Query("direction"))
	if err != nil {
		return err
	}
	depth, err := lineage.ParseDepth(c.Query("depth"))
	if err != nil {
		return err
	}
	if node, err = lineage.ParseID("node", node); err != nil {
		return err
	}
	sub, err := s.Lineage.Neighbourhood(ctx, orgID, node, dir, depth)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, sub)
}

// edgeRequest is the body of an edge's creation.
type edgeRequest struct {
	SourceNodeID string `json:"source_node_id"`
	TargetNodeID string `json:"target_node_id"`
}

// addLineageEdge adds an edge between two nodes of the organisation (scope
// write): data flows from source_node_id to target_node_id.
func (s *Server) addLineageEdge(c *gin.Context) error {
	var req edgeRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.SourceNodeID == "" || req.TargetNodeID == "" {
		return errs.BadRequest("source_node_id and target_node_id are required")
	}
	p := mustPrincipal(c)
	e, err := s.Lineage.AddEdge(c.Request.Context(), p.OrgID, p.actorID(), req.SourceNodeID, req.TargetNodeID)
	if err != nil {
		return err
	}
	return respond(c, http.StatusCreated, e)
}

// deleteLineageEdge removes an edge a user added (scope write); the edges
// DQS keeps itself are a 409.
func (s *Server) deleteLineageEdge(c *gin.Context) error {
	id := c.Param("id")
	if err := s.Lineage.DeleteEdge(c.Request.Context(), mustPrincipal(c).OrgID, id); err != nil {
		return err
	}
	return respond(c, http.StatusOK, gin.H{"id": id, "deleted": true})
}
