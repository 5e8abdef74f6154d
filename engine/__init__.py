"""The model runtime (imported as `decider.engine`): corpus, tokenizer, model, checkpoint
io, decoding, training and evaluation. Never imports grpc or generated protobuf code."""
