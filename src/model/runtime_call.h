// What a runtime API call's name says about it, one definition for every reader: a call that
// blocks the host until the device (or a stream, or an event) is done — cudaDeviceSynchronize,
// cudaStreamSynchronize, cudaEventSynchronize, hipDeviceSynchronize, hipStreamSynchronize,
// cuCtxSynchronize, ... Both vendors name every such call "*Synchronize*" (CUDA Runtime API §6.1,
// HIP Runtime API reference), so the name is the one vocabulary the readers share; a reader that
// also has a category or record saying "sync" (Kineto's cuda_sync, Nsight's SYNCHRONIZATION
// table) adds it on top.
#pragma once
#include <string_view>

namespace goblin {

inline bool is_sync_call(std::string_view api_name) { return api_name.find("Synchronize") != std::string_view::npos; }

}  // namespace goblin
