"""The worker's line protocol on stdio (spade_protocol.serve): the loop the entry points run."""
