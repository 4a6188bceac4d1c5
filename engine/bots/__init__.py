"""The bots: the simple ones, the expert, the card-counting memory and ISMCTS."""
