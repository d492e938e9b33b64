"""Grounded answers: Discovery Engine's answerQuery, its stream and its sessions
(``answer_query``; its responses read in ``responses``), the Developer Knowledge API's
(``developer_knowledge``), and follow-up questions for an API without sessions
(``follow_ups``)."""
