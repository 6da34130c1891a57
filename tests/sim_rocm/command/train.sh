#!/bin/bash
# A launch script as users keep them: the audit reads, patches and runs this line.
#SBATCH --job-name=clm
export TOKENIZERS_PARALLELISM=false
python3 run_clm.py \
    --model_name_or_path sim-llama \
    --per_device_train_batch_size 2 \
    --block_size 1024 \
    --output_dir "/tmp/clm out"
