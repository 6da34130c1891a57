#!/bin/bash
# The command line given to goblin audit --command.
python3 run_clm.py --model_name_or_path sim-llama --per_device_train_batch_size 2 --block_size 1024 --attn_implementation flash_attention_2 --dataloader_num_workers 4 --optim adamw_torch_fused --bf16
