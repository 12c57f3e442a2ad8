// What a method, technique or dataset is used for, as abstracts state it, with the evidence sentence.
// params: technique = "knowledge distillation" (a concept key), limit = 20
MATCH (c:Concept {key: $technique})-[r:USED_FOR]->(t:Concept)
RETURN t.name AS used_for, t.type AS type, r.n_papers AS papers, r.paper AS paper, r.sentence AS evidence
ORDER BY papers DESC, used_for
LIMIT $limit
