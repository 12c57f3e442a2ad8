// Concepts whose co-occurrences spread over several communities (participation coefficient).
// params: min_degree = 2 (concepts linked to at least this many others), limit = 20
// Generic concepts ("computational cost", "downstream task": Concept.generic) are left out, and so are
// metrics: one co-occurs with whatever it scores ("inference time", "average accuracy" on arXiv ML).
MATCH (c:Concept)
WHERE c.bridge > 0 AND c.degree >= $min_degree AND NOT coalesce(c.generic, false)
  AND coalesce(c.type, '') <> 'Metric'
RETURN c.name AS concept, c.type AS type, c.bridge AS bridge, c.degree AS degree, c.community AS community
ORDER BY bridge DESC, concept
LIMIT $limit
