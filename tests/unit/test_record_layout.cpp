// Record types read from numba's spelling: fields, offsets, nested arrays and records, one
// interned type per spelling (whatever the scalar names), errors naming the position, and
// the runtime dtypes made from them.
#include "cutwin/cutwin.h"
#include "frontend/sema/record_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace cutwin;
using namespace cutwin::fe;
using ::testing::HasSubstr;

namespace {
constexpr const char *kPoint =
    "Record(a[type=float64;offset=0],b[type=int32;offset=8],c[type=complex64;offset=12],"
    "d[type=nestedarray(uint8, (5,));offset=20];32;True)";
}

TEST(RecordLayout, ReadsFieldsOffsetsAndNestedArrays) {
  const RecordLayout *r = parseRecord(kPoint);
  ASSERT_EQ(r->fields.size(), 4u);
  EXPECT_EQ(r->size, 32u);
  EXPECT_TRUE(r->aligned);
  EXPECT_EQ(r->alignment(), 8u);
  EXPECT_EQ(r->field("c")->scalar, Scalar::C64);
  EXPECT_EQ(r->field("c")->offset, 12u);
  EXPECT_EQ(r->field("c")->alignment(), 4u); // a complex number: its parts'
  EXPECT_EQ(r->field("d")->shape, std::vector<int64_t>{5});
  EXPECT_EQ(r->field("d")->size(), 5u);
  EXPECT_EQ(r->text, kPoint); // numba's spelling, kept
  EXPECT_EQ(r->field("nope"), nullptr);
}

TEST(RecordLayout, OneTypePerSpellingAndNestedRecords) {
  const RecordLayout *a = parseRecord("Record(x[type=bool;offset=0],y[type=float32;offset=4];8;True)");
  const RecordLayout *b = parseRecord("Record(x[type=boolean;offset=0],y[type=f4;offset=4];8;True)");
  EXPECT_EQ(a, b); // the same type, however its scalars are named
  std::string outer = std::string("Record(t[type=int16;offset=0],p[type=") + kPoint +
                      ";offset=8],m[type=nestedarray(float32, (3, 2));offset=40];64;True)";
  const RecordLayout *o = parseRecord(outer);
  EXPECT_EQ(o->field("p")->record, parseRecord(kPoint));
  EXPECT_EQ(o->field("m")->shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(o->text, outer);
  EXPECT_EQ(recordOfTypeName(recordTypeName(o)), o);
  EXPECT_EQ(nameRecordsIn(outer + "[::1]"), recordTypeName(o) + "[::1]");
}

TEST(RecordLayout, ErrorsNameWhatAndWhere) {
  auto message = [](const std::string &text) {
    try {
      parseRecord(text);
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("Record(f[type=[char x 4];offset=0];4;False)"),
              HasSubstr("record fields of type [char x 4] are not supported"));
  EXPECT_THAT(message("Record(f[type=int32;offset=6];8;False)"),
              HasSubstr("lies beyond the record's 8 bytes"));
  EXPECT_THAT(message("Record(f[type=int32;offset=0];4;Maybe)"),
              HasSubstr("at character 33: expected 'False'"));
  EXPECT_THAT(message(std::string(kPoint) + "x"), HasSubstr("text after the record's closing"));
}

TEST(RecordLayout, RuntimeDTypesOfRecords) {
  DType t = recordDType(kPoint);
  EXPECT_TRUE(dtypeIsRecord(t));
  EXPECT_EQ(dtypeSize(t), 32u);
  EXPECT_EQ(std::string(dtypeName(t)), kPoint);
  EXPECT_EQ(dtypeFromName(kPoint), t);
  EXPECT_EQ(recordDType("Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)"),
            DType::Xoroshiro128p); // numba's RNG state record is the runtime's own dtype
  EXPECT_FALSE(dtypeIsRecord(DType::F64));
}
