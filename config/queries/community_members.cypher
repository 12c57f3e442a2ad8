// The concepts of one community, most central first, and how many papers mention them.
// params: community = 0 (a number; 0 is the largest), limit = 20
MATCH (c:Concept)
WHERE c.community = $community
RETURN c.name AS concept, c.type AS type, c.paper_count AS papers, c.pagerank AS pagerank
ORDER BY pagerank DESC, concept
LIMIT $limit
