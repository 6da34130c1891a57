#!/bin/bash
# An image workload's launch script: throughput is images/s (batch x accumulation per step).
python3 train_images.py --img-size 224 --batch-size 16
