"""The Ranking API's scorer (RankService.Rank): each record scored against the query alone."""
