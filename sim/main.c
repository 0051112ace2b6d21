#include <stdio.h>
int main(void) { puts("nastwin: under construction"); return 0; }
