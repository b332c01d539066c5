package standardize

// unionFind merges clusters transitively across methods. Elements are
// added as the fingerprints are met.
type unionFind struct {
	parent []int32
}

func (u *unionFind) add() int32 {
	id := int32(len(u.parent))
	u.parent = append(u.parent, id)
	return id
}

func (u *unionFind) find(x int32) int32 {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]] // path halving
		x = u.parent[x]
	}
	return x
}

// union links the sets of a and b; the smaller root becomes the root, so
// the result does not depend on the order of the links.
func (u *unionFind) union(a, b int32) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	if b < a {
		a, b = b, a
	}
	u.parent[b] = a
}
