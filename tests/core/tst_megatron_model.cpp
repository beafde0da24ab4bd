// The model Megatron-LM builds from the exported arguments (core/model/megatron_model.h): its parameter
// count by hand for the example models, next to the plan's model; the flags that make Megatron build each
// family; the MoE layer pattern; and the models it cannot express, refused with the reason.
#include "testutil.h"

#include "core/base/errors.h"
#include "core/model/frameworks.h"
#include "core/model/megatron_model.h"

#include <QTest>

#include <algorithm>

using namespace hetplan;

namespace {

std::vector<std::string> argsFor(const ModelSpec& m, int tp)
{
    std::vector<std::string> a = megatronModelArguments(m, m.arch.sequence);
    a.insert(a.end(), {"--tensor-model-parallel-size", std::to_string(tp)});
    const std::vector<std::string> t = megatronMockTokenizerArguments(m);
    a.insert(a.end(), t.begin(), t.end());
    return a;
}

double countOf(const ModelSpec& m, int tp = 1)
{
    return megatronParameterCount(megatronEntry(m), argsFor(m, tp), m.arch.vocab).total();
}

std::string value(const std::vector<std::string>& a, const std::string& flag)
{
    const auto it = std::find(a.begin(), a.end(), flag);
    return it == a.end() || it + 1 == a.end() ? std::string() : *(it + 1);
}
bool has(const std::vector<std::string>& a, const std::string& flag)
{
    return std::find(a.begin(), a.end(), flag) != a.end();
}

} // namespace

class TestMegatronModel : public QObject {
    Q_OBJECT
private slots:
    void gptTwoByHand()
    {
        // gpt2-amp: 24 layers, h 1024, 16 heads, FFN 4096, vocab 52256, 1024 learned positions, tied.
        // A layer: QKV 3h² + 3h = 3,148,800; projection h² + h = 1,049,600; MLP 8h² + 5h = 8,393,728;
        // two LayerNorms 4h = 4,096 → 12,596,224. Embedding 52256·1024 + 1024·1024 = 54,558,720; head
        // (final norm only, the output layer shares the embedding) 2,048.
        // Total 54,558,720 + 24 · 12,596,224 + 2,048 = 356,870,144.
        const ModelSpec m = buildExampleModel("gpt2-amp");
        const MegatronParameterCount c = megatronParameterCount("pretrain_gpt.py", argsFor(m, 1));
        QCOMPARE(c.embedding, 54558720.0);
        QCOMPARE(c.layers.size(), size_t(24));
        QCOMPARE(c.layers[0], 12596224.0);
        QCOMPARE(c.head, 2048.0);
        QCOMPARE(c.total(), 356870144.0);
        QCOMPARE(m.totalParams(), 356870144.0);
        // GPT-2 XL: h 1600 → layer 12h² + 13h = 30,740,800; embedding (50257 + 1024)·1600 = 82,049,600;
        // head 3,200: 82,049,600 + 48 · 30,740,800 + 3,200 = 1,557,611,200 (the published 1.558 B).
        QCOMPARE(countOf(buildExampleModel("gpt2-xl")), 1557611200.0);
        QCOMPARE(buildExampleModel("gpt2-xl").totalParams(), 1557611200.0);
    }

    void llamaByHand()
    {
        // Llama-2-7B: layer 4h² + 3·h·ffn + 2h = 67,108,864 + 135,266,304 + 8,192 = 202,383,360 (RMSNorm, no
        // biases); embedding 32000·4096 = 131,072,000; head norm 4,096 + untied output 131,072,000.
        // Total 131,072,000 + 32 · 202,383,360 + 131,076,096 = 6,738,415,616 (the published count).
        QCOMPARE(countOf(buildExampleModel("llama2-7b")), 6738415616.0);
        QCOMPARE(buildExampleModel("llama2-7b").totalParams(), 6738415616.0);
        // Llama-3-8B, 8 KV groups of d 128: QKV 4096·(4096 + 2·8·128) = 25,165,824, projection 16,777,216,
        // MLP 3·4096·14336 = 176,160,768, norms 8,192 → 218,112,000 a layer; vocabulary 128256 untied:
        // 2 · 525,336,576 + 4,096 + 32 · 218,112,000 = 8,030,261,248.
        QCOMPARE(countOf(buildExampleModel("llama3-8b")), 8030261248.0);
        QCOMPARE(buildExampleModel("llama3-8b").totalParams(), 8030261248.0);
        // Qwen2-0.5B (llama-0.5b): 14 heads, 2 KV groups of d 64; QKV 896·1152 + 1152 bias = 1,033,344 (only
        // with --add-qkv-bias), projection 802,816, MLP 3·896·4864 = 13,074,432, norms 1,792 → 14,912,384;
        // tied vocabulary 151936·896 = 136,134,656, final norm 896: 494,032,768.
        const ModelSpec qwen = buildExampleModel("llama-0.5b");
        QCOMPARE(countOf(qwen), 494032768.0);
        QCOMPARE(qwen.totalParams(), 494032768.0);
        // Without the bias flag Megatron builds 24 · 1,152 parameters fewer.
        std::vector<std::string> noBias = argsFor(qwen, 1);
        noBias.erase(std::find(noBias.begin(), noBias.end(), "--add-qkv-bias"));
        QCOMPARE(megatronParameterCount("pretrain_gpt.py", noBias).total(), 494032768.0 - 24 * 1152);
    }

    void bertByHand()
    {
        // bert-base through pretrain_bert.py: layers 12h² + 13h = 7,087,872 each (post- or pre-norm alike);
        // embedding (30522 + 512 + 2 token types)·768 = 23,835,648; head: final norm 1,536, LM head dense and
        // norm 768² + 768 + 1,536 = 592,128, output bias 30,522, pooler 768² + 768 = 590,592, binary head
        // 2·768 + 2 = 1,538 → 1,216,316. Total 23,835,648 + 12 · 7,087,872 + 1,216,316 = 110,106,428 (the
        // published BERT-base pre-training model). The plan's BERT: embedding adds its norm (23,837,184),
        // head = pooler + transform + bias = 590,592 + 592,128 + 30,522 = 1,213,242: 110,104,890 =
        // Megatron's minus the binary head's 1,538.
        const ModelSpec bert = buildExampleModel("bert-base");
        QCOMPARE(megatronEntry(bert), std::string("pretrain_bert.py"));
        const MegatronParameterCount c = megatronParameterCount("pretrain_bert.py", argsFor(bert, 1), 30522);
        QCOMPARE(c.embedding, 23835648.0);
        QCOMPARE(c.head, 1216316.0);
        QCOMPARE(c.binaryHead, 1538.0);
        QCOMPARE(c.total(), 110106428.0);
        QCOMPARE(bert.totalParams(), 110104890.0);
        const MegatronModelMatch m = matchMegatronModel(bert, 512, 1);
        QVERIFY2(m.mismatch.empty(), m.mismatch.c_str());
        QCOMPARE(int(m.differences.size()), 1); // pre-norm placement and the binary head, stated
        // tp = 4 pads 30522 to 30524: 2 rows of (768 embedding + 1 output bias) = 1,538 parameters.
        const MegatronModelMatch padded = matchMegatronModel(bert, 512, 4);
        QCOMPARE(padded.megatron.vocabPadding, 1538.0);
        QVERIFY(padded.mismatch.empty());
        QVERIFY(padded.differences[0].find("pads the vocabulary") != std::string::npos);
    }

    void vocabularyPadding()
    {
        // NullTokenizer adds one token to --vocab-size: 50256 + 1 = 50257 rows with divisible-by 1 and tp 1.
        const ModelSpec xl = buildExampleModel("gpt2-xl");
        QCOMPARE(value(argsFor(xl, 1), "--vocab-size"), std::string("50256"));
        QCOMPARE(matchMegatronModel(xl, 1024, 1).megatron.vocabPadding, 0.0);
        // tp 5 (it divides 25 heads) pads 50257 to 50260: 3 rows × 1600 = 4,800 in the tied embedding.
        QCOMPARE(matchMegatronModel(xl, 1024, 5).megatron.vocabPadding, 4800.0);
        // Megatron's default divisor 128 would pad to 50304: 47 rows × 1600 = 75,200.
        std::vector<std::string> a = argsFor(xl, 1);
        a.erase(std::find(a.begin(), a.end(), "--make-vocab-size-divisible-by"), std::find(a.begin(), a.end(), "--make-vocab-size-divisible-by") + 2);
        const MegatronParameterCount c = megatronParameterCount("pretrain_gpt.py", a);
        QCOMPARE(c.vocabPadding, 75200.0);
        QCOMPARE(c.total(), 1557611200.0 + 75200);
    }

    void familyFlags()
    {
        const std::vector<std::string> l3 = megatronModelArguments(buildExampleModel("llama3-8b"), 8192);
        QCOMPARE(value(l3, "--rotary-base"), std::string("500000"));
        QCOMPARE(value(l3, "--attention-dropout"), std::string("0"));
        QCOMPARE(value(l3, "--hidden-dropout"), std::string("0"));
        QCOMPARE(value(l3, "--num-query-groups"), std::string("8"));
        QVERIFY(!has(l3, "--add-qkv-bias"));
        QCOMPARE(value(megatronModelArguments(buildExampleModel("llama2-7b"), 4096), "--rotary-base"),
                 std::string("10000"));
        const std::vector<std::string> qwen = megatronModelArguments(buildExampleModel("llama-0.5b"), 2048);
        QVERIFY(has(qwen, "--add-qkv-bias") && has(qwen, "--disable-bias-linear"));
        QVERIFY(!has(qwen, "--untie-embeddings-and-output-weights")); // tied
        QCOMPARE(value(qwen, "--rotary-base"), std::string("1000000"));
        // GPT-2 is Megatron's default model: no family flags, dropout left at Megatron's 0.1.
        const std::vector<std::string> gpt = megatronModelArguments(buildExampleModel("gpt2-amp"), 1024);
        for (const char* f : {"--swiglu", "--normalization", "--position-embedding-type", "--rotary-base",
                              "--disable-bias-linear", "--attention-dropout", "--num-experts"})
            QVERIFY2(!has(gpt, f), f);
        QCOMPARE(value(gpt, "--make-vocab-size-divisible-by"), std::string("1"));
    }

    void moeLayerPattern()
    {
        // gpt2-amp with blocks 1, 3, 5, ... made MoE (8 experts): each holds attention 4,198,400, norms
        // 4,096, a router 8·1024 = 8,192 and 8 MLPs of 8,393,728 → 71,360,512.
        ModelSpec m = buildExampleModel("gpt2-amp");
        m.arch.experts = 8;
        for (int b = 1; b < 24; b += 2) {
            m.layers[b + 1].kind = LayerKind::MoE;
            m.layers[b + 1].params = 71360512;
        }
        const std::vector<std::string> a = megatronModelArguments(m, 1024);
        QCOMPARE(value(a, "--moe-layer-freq"), std::string("[0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1]"));
        QCOMPARE(value(a, "--num-experts"), std::string("8"));
        const MegatronModelMatch match = matchMegatronModel(m, 1024, 1);
        QVERIFY2(match.mismatch.empty(), match.mismatch.c_str());
        QCOMPARE(match.megatron.layers[1], 71360512.0);
        QCOMPARE(match.megatron.layers[0], 12596224.0);
        // Megatron's integer form N puts MoE in layers 0, N, 2N: with N = 2 the MoE layers would be the
        // even ones, the count per layer no longer matches.
        std::vector<std::string> shifted = argsFor(m, 1);
        *(std::find(shifted.begin(), shifted.end(), "--moe-layer-freq") + 1) = "2";
        const MegatronParameterCount c = megatronParameterCount("pretrain_gpt.py", shifted);
        QCOMPARE(c.layers[0], 71360512.0);
        QCOMPARE(c.layers[1], 12596224.0);
        // Every block MoE → the integer 1.
        for (LayerSpec& l : m.layers)
            if (l.kind == LayerKind::Transformer) {
                l.kind = LayerKind::MoE;
                l.params = 71360512;
            }
        QCOMPARE(value(megatronModelArguments(m, 1024), "--moe-layer-freq"), std::string("1"));
        QVERIFY(matchMegatronModel(m, 1024, 1).mismatch.empty());
    }

    void modelsMegatronCannotBuild()
    {
        // OPT-350m: projected 512-wide embedding, ReLU, post-norm without a final norm.
        const std::vector<std::string> opt = megatronModelProblems(buildExampleModel("opt-350m"));
        QCOMPARE(int(opt.size()), 3);
        QVERIFY(opt[0].find("512 wide") != std::string::npos);
        QVERIFY(opt[1].find("ReLU") != std::string::npos);
        QVERIFY(opt[2].find("post-norm") != std::string::npos);
        QCOMPARE(int(megatronModelProblems(buildExampleModel("opt-30b")).size()), 1); // ReLU only
        QVERIFY(!megatronModelProblems(buildExampleModel("vit-base")).empty());
        // bert-moe is BERT with MoE blocks: through pretrain_gpt.py Megatron builds a decoder without BERT's
        // token types, embedding norm, pooler and LM-head transform, so the counts differ and it is refused.
        const ModelSpec bm = buildExampleModel("bert-moe");
        QVERIFY(megatronModelProblems(bm).empty());
        const MegatronModelMatch m = matchMegatronModel(bm, 512, 1);
        QVERIFY(!m.mismatch.empty());
        QVERIFY2(m.mismatch.find("embedding and head") != std::string::npos, m.mismatch.c_str());
        // A BERT with MoE blocks is refused by name.
        ModelSpec bertMoe = bm;
        bertMoe.arch.family = "bert";
        QVERIFY(megatronModelProblems(bertMoe).back().find("dense layers only") != std::string::npos);
        // A model whose layer sizes do not follow its architecture numbers is refused with the first layer
        // that differs.
        ModelSpec off = buildExampleModel("gpt2-amp");
        off.layers[3].params += 1000;
        const std::string why = matchMegatronModel(off, 1024, 1).mismatch;
        QVERIFY2(why.find("layer 2 has") != std::string::npos, why.c_str());
    }

    void everyExampleModel()
    {
        // Every example Megatron accepts builds the plan's count exactly (padding and BERT's binary head
        // aside); the others are refused with a reason. The log lists both counts per model.
        int accepted = 0;
        for (const std::string& name : exampleModelNames()) {
            const ModelSpec m = buildExampleModel(name);
            const std::vector<std::string> problems = megatronModelProblems(m);
            const bool dense = std::none_of(m.layers.begin(), m.layers.end(), [](const LayerSpec& l) {
                return l.kind != LayerKind::Embedding && l.kind != LayerKind::Head &&
                       l.kind != LayerKind::Transformer && l.kind != LayerKind::MoE;
            });
            if (!problems.empty() || !dense) {
                qInfo("%-14s plan %.0f; refused: %s", name.c_str(), m.totalParams(),
                      problems.empty() ? "layers other than embedding, blocks and head" : problems[0].c_str());
                continue;
            }
            const MegatronModelMatch r = matchMegatronModel(m, m.arch.sequence, 1);
            qInfo("%-14s plan %.0f; Megatron builds %.0f (padding %.0f, binary head %.0f)%s%s", name.c_str(), r.planned,
                  r.megatron.total(), r.megatron.vocabPadding, r.megatron.binaryHead, r.mismatch.empty() ? "" : "; refused: ",
                  r.mismatch.c_str());
            if (name == "bert-moe") {
                QVERIFY(!r.mismatch.empty());
                continue;
            }
            QVERIFY2(r.mismatch.empty(), (name + ": " + r.mismatch).c_str());
            QCOMPARE(r.megatron.total() - r.megatron.vocabPadding - r.megatron.binaryHead, r.planned);
            ++accepted;
        }
        // gpt2-amp, gpt2-xl, llama2-7b, llama2-13b, bert-base, bert-hap, llama-0.5b, llama-1.1b,
        // gpt-neo-2.7b, llama3-8b, mixtral-8x7b (a GPT with 8 experts in every block, parameter for parameter).
        QCOMPARE(accepted, 11);
    }

    void badArgumentsAreInputErrors()
    {
        for (const std::vector<std::string>& a :
             {std::vector<std::string>{"--hidden-size", "8", "--num-attention-heads", "2"},
              {"--num-layers", "2", "--hidden-size", "x", "--num-attention-heads", "2"},
              {"--num-layers", "2", "--hidden-size", "8", "--num-attention-heads", "2", "--tokenizer-type",
               "NullTokenizer", "--vocab-size", "9", "--max-position-embeddings", "4", "--num-experts", "2",
               "--moe-layer-freq", "[1,0,1]"},
              {"--num-layers", "2", "--hidden-size", "8", "--num-attention-heads", "2", "--max-position-embeddings",
               "4"}}) {
            const auto e = test::errorOf([&] { megatronParameterCount("pretrain_gpt.py", a); });
            QVERIFY(e.has_value());
            QCOMPARE(e->file(), std::string("megatron-arguments"));
        }
        QVERIFY(test::errorOf([] { megatronParameterCount("pretrain_t5.py", {}); }).has_value());
    }
};

QTEST_GUILESS_MAIN(TestMegatronModel)
#include "tst_megatron_model.moc"
