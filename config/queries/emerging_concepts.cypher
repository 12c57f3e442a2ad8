// Concepts whose share of papers grew most in the last years (the analyse stage's trend).
// params: min_papers = 2 (ignore concepts with fewer papers), limit = 20
// Generic concepts ("computational cost", "downstream task": Concept.generic) are left out.
MATCH (c:Concept)
WHERE c.trend > 0 AND c.paper_count >= $min_papers AND NOT coalesce(c.generic, false)
RETURN c.name AS concept, c.type AS type, c.trend AS trend, c.first_year AS first_year, c.yearly AS papers_per_year
ORDER BY trend DESC, concept
LIMIT $limit
