#include "gradient_reduction.h"

#include <algorithm>

namespace hetplan {

std::vector<double> gradientBuckets(const std::vector<double>& gradientBytes, double bucketBytes)
{
    std::vector<double> buckets;
    double open = 0;
    for (double b : gradientBytes) {
        if (b <= 0)
            continue;
        if (open > 0 && open + b > bucketBytes) {
            buckets.push_back(open);
            open = 0;
        }
        open += b;
    }
    if (open > 0)
        buckets.push_back(open);
    return buckets;
}

std::vector<double> evenBuckets(double totalBytes, double bucketBytes)
{
    std::vector<double> buckets;
    if (!(bucketBytes > 0))
        return totalBytes > 0 ? std::vector<double>{totalBytes} : buckets;
    for (double left = totalBytes; left > 0; left -= bucketBytes)
        buckets.push_back(std::min(left, bucketBytes));
    return buckets;
}

double reduceBucketBytes(double gradientBytesPerElement) { return kReduceBucketElements * gradientBytesPerElement; }

double bucketed(double (*collective)(double, int, LinkParams), const std::vector<double>& buckets, int ranks,
                LinkParams link)
{
    double s = 0;
    for (double b : buckets)
        s += collective(b, ranks, link);
    return s;
}

} // namespace hetplan
