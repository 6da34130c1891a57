#!/bin/bash
# Train the ResNet-18 of train_cnn.py on 224 px images, as its README says.
python3 train_cnn.py \
    --batch-size 64 \
    --img-size 224 \
    --log-interval 1
