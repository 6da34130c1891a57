#include "activity_copy.h"

namespace goblin::tracer {

uint32_t ActivityCopier::intern(const std::string& s) {
  auto [it, inserted] = by_str_.emplace(s, static_cast<uint32_t>(t_.strings.size()));
  if (inserted) t_.strings.push_back(s);
  return it->second;
}

// Kernel names repeat by pointer (CUPTI keeps one string per function); the string compare
// guards against a pointer reused after a module unload.
uint32_t ActivityCopier::kernel_name(const char* p) {
  if (!p) return intern("<unnamed kernel>");
  auto it = by_ptr_.find(p);
  if (it != by_ptr_.end() && t_.strings[it->second] == p) return it->second;
  uint32_t id = intern(p);
  by_ptr_[p] = id;
  return id;
}

bool ActivityCopier::copy(const CUpti_Activity* r, uint32_t (*corr)(uint32_t)) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      KernelRec o;
      o.start = k->start;
      o.end = k->end;
      o.name = kernel_name(k->name);
      o.correlation = corr(k->correlationId);
      o.device = k->deviceId;
      o.context = k->contextId;
      o.stream = k->streamId;
      o.grid[0] = k->gridX, o.grid[1] = k->gridY, o.grid[2] = k->gridZ;
      o.block[0] = k->blockX, o.block[1] = k->blockY, o.block[2] = k->blockZ;
      o.registers = k->registersPerThread;
      o.static_smem = static_cast<uint32_t>(k->staticSharedMemory);
      o.dynamic_smem = static_cast<uint32_t>(k->dynamicSharedMemory);
      o.graph_id = k->graphId;
      o.graph_node_id = k->graphNodeId;
      t_.kernels.push_back(o);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      CopyRec o;
      o.start = m->start;
      o.end = m->end;
      o.bytes = m->bytes;
      o.correlation = corr(m->correlationId);
      o.device = m->deviceId;
      o.context = m->contextId;
      o.stream = m->streamId;
      o.graph_id = m->graphId;
      o.copy_kind = m->copyKind;
      o.src_kind = m->srcKind;
      o.dst_kind = m->dstKind;
      t_.copies.push_back(o);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      CopyRec o;
      o.start = m->start;
      o.end = m->end;
      o.bytes = m->bytes;
      o.correlation = corr(m->correlationId);
      o.device = m->deviceId;
      o.context = m->contextId;
      o.stream = m->streamId;
      o.graph_id = m->graphId;
      o.dst_kind = static_cast<uint8_t>(m->memoryKind);
      o.is_memset = true;
      o.value = m->value;
      t_.copies.push_back(o);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
      t_.apis.push_back(ApiRec{a->start, a->end, a->cbid, corr(a->correlationId), a->processId, a->threadId,
                               r->kind == CUPTI_ACTIVITY_KIND_DRIVER});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(r);
      t_.syncs.push_back(
          SyncRec{s->start, s->end, corr(s->correlationId), s->contextId, s->streamId, static_cast<uint32_t>(s->type)});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(r);
      MarkerRec o;
      o.ts = m->timestamp;
      o.id = m->id;
      if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) o.flags |= MarkerRec::Instant;
      if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) o.flags |= MarkerRec::Start;
      if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) o.flags |= MarkerRec::End;
      if (m->name && (o.flags & (MarkerRec::Start | MarkerRec::Instant))) o.name = intern(m->name);
      if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        o.pid = m->objectId.pt.processId;
        o.tid = m->objectId.pt.threadId;
      }
      t_.markers.push_back(o);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(r);
      uint32_t tid = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o->objectId.pt.threadId : 0;
      t_.overheads.push_back(OverheadRec{o->start, o->end, static_cast<uint32_t>(o->overheadKind), tid});
      return true;
    }
    default:
      return false;
  }
}

}  // namespace goblin::tracer
